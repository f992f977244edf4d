// What a person's edit of recorded steps may be refused for, field by field, so the step editor can show each
// problem beside the field it is about.
import { InvalidError } from './errors.js';
import type { Step } from './steps.js';

type Action = Step['action'];

/** Actions whose `value` is what they do or check: an empty one would do nothing, or (an assertion) pass always. */
export const actionsNeedingValue: ReadonlySet<Action> = new Set<Action>([
  'navigate',
  'fill',
  'select',
  'press',
  'type',
  'assert_text',
  'assert_url',
  'upload',
]);

/**
 * Actions whose value means something, so the step editor gives them a value field: those above, and those whose
 * value is not required (the address a mail is waited for at, the link or tab to open).
 */
export const actionsWithValue: ReadonlySet<Action> = new Set<Action>([
  ...actionsNeedingValue,
  'wait_for_email',
  'open_link',
  'switch_tab',
]);

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
