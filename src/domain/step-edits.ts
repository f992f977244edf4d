// What a person's edit of recorded steps may be refused for, field by field, so the step editor can show each
// problem beside the field it is about.
import { InvalidError } from './errors.js';

/** Fields of a step a person edits; `steps` is the list as a whole (an empty one, say). */
export type StepEditField = 'steps' | 'description' | 'locator' | 'fallbacks' | 'value' | 'expected';

export interface StepEditProblem {
  /** Position in the submitted list (0-based); -1 for the list as a whole. */
  index: number;
  field: StepEditField;
  message: string;
}

/** The edited steps break a rule: nothing was saved; `problems` says which field of which step. */
export class StepEditError extends InvalidError {
  override readonly name = 'StepEditError';
  constructor(readonly problems: StepEditProblem[]) {
    super(problems.map((p) => (p.index >= 0 ? `step ${p.index + 1} ${p.field}: ${p.message}` : p.message)).join('; '));
  }
}
