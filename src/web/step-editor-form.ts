import type { Step } from '../domain/steps.js';

// The step editor's form, read back. The draft lives in the form itself (no server state between posts): each
// block says which recorded step it started from (`s<k>.from`) and carries the person's edits, in draft order,
// so "move up", "delete" and a failed save all re-render what the person has so far.

/** One step of the draft: the recorded step it came from and the step as edited. */
export interface DraftStep {
  from: number;
  step: Step;
}

export type EditorOp = { kind: 'save' } | { kind: 'up' | 'down' | 'delete'; at: number };

/** The field names of a draft block; the page and the parser share them. */
export const fieldName = (k: number, field: 'from' | 'description' | 'locator' | 'fallbacks' | 'value' | 'expected') =>
  `s${k}.${field}`;

type Body = Record<string, string | File | (string | File)[]>;

const text = (body: Body, name: string): string | undefined => {
  const v = body[name];
  return typeof v === 'string' ? v : undefined;
};

/** The draft a form posted, against the recorded steps it was made from; undefined when it does not fit them. */
export function readDraft(body: Body, recorded: Step[]): DraftStep[] | undefined {
  const count = Number(text(body, 'count'));
  if (!Number.isInteger(count) || count < 0 || count > recorded.length) return undefined;
  const draft: DraftStep[] = [];
  for (let k = 0; k < count; k++) {
    const from = Number(text(body, fieldName(k, 'from')));
    const original = recorded[from];
    if (!Number.isInteger(from) || !original) return undefined;
    draft.push({ from, step: edited(original, (f) => text(body, fieldName(k, f))) });
  }
  return draft;
}

/** The recorded step with the edited fields a block posted; a field not posted is left as recorded. */
function edited(
  original: Step,
  field: (f: 'description' | 'locator' | 'fallbacks' | 'value' | 'expected') => string | undefined,
): Step {
  const step: Step = { ...original };
  const description = field('description');
  if (description !== undefined) step.description = description.trim();
  const locator = field('locator');
  if (locator !== undefined) step.locator = locator.trim() || undefined;
  const fallbacks = field('fallbacks');
  if (fallbacks !== undefined) {
    const lines = fallbacks
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    step.fallbacks = lines.length > 0 ? lines : undefined;
  }
  const value = field('value');
  // A value the step never had stays absent when left empty; an emptied one is kept empty, for the check to refuse.
  if (value !== undefined) step.value = value === '' && original.value === undefined ? undefined : value;
  const expected = field('expected');
  const key = expectationKey(original);
  if (expected !== undefined && key && step.target) step.target = { ...step.target, [key]: expected.trim() };
  for (const k of Object.keys(step) as (keyof Step)[]) if (step[k] === undefined) delete step[k];
  return step;
}

/** Which field of the recorded target holds an assertion's expectation (the name, else the text); none for actions. */
export function expectationKey(step: Step): 'name' | 'text' | undefined {
  if (step.action !== 'assert_visible' || !step.target) return undefined;
  if (step.target.name !== undefined) return 'name';
  return step.target.text !== undefined ? 'text' : undefined;
}

/** Which button was pressed: save, or move/delete the block at a draft position. */
export function readOp(body: Body): EditorOp | undefined {
  const op = text(body, 'op') ?? '';
  if (op === 'save') return { kind: 'save' };
  const m = /^(up|down|delete):(\d{1,4})$/.exec(op);
  return m ? { kind: m[1] as 'up' | 'down' | 'delete', at: Number(m[2]) } : undefined;
}

/** The draft after a move or a delete (out-of-range moves change nothing). */
export function applyOp(draft: DraftStep[], op: Exclude<EditorOp, { kind: 'save' }>): DraftStep[] {
  const next = [...draft];
  if (op.at < 0 || op.at >= next.length) return next;
  if (op.kind === 'delete') {
    next.splice(op.at, 1);
    return next;
  }
  const to = op.kind === 'up' ? op.at - 1 : op.at + 1;
  if (to < 0 || to >= next.length) return next;
  [next[op.at], next[to]] = [next[to]!, next[op.at]!];
  return next;
}
