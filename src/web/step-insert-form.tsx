import type { Step } from '../domain/steps.js';
import { CsrfField } from './layout.js';

// "Insert a step here" under the step editor: a plain form (no JavaScript needed), its own so the editor's draft
// form stays as it is. It inserts into the saved version: unsaved edits in the editor above are not part of it.

export function StepInsertForm(props: {
  base: string;
  csrfToken: string;
  testCaseId: string;
  version: number;
  steps: Step[];
  at?: number;
  description?: string;
}) {
  const { steps } = props;
  const at = props.at ?? steps.length;
  return (
    <form
      method="post"
      action={`${props.base}/test-cases/${props.testCaseId}/steps/insert`}
      class="card"
      aria-labelledby="insert-heading"
    >
      <h2 id="insert-heading">Insert a step here</h2>
      <p>
        Say in words what the step should do. The agent replays the steps of version {props.version} before it, records
        the step from where they leave the page, and saves the result as version {props.version + 1}. Unsaved edits
        above are not included.
      </p>
      <CsrfField token={props.csrfToken} />
      <p>
        <label for="insert-at">Where</label>
        <select id="insert-at" name="at">
          {steps.map((step, i) => (
            <option value={String(i)} selected={i === at}>
              Before step {i + 1}: {step.description}
            </option>
          ))}
          <option value={String(steps.length)} selected={at === steps.length}>
            After the last step
          </option>
        </select>
      </p>
      <p>
        <label for="insert-description">The step, in words</label>
        <textarea id="insert-description" name="description" rows={3} maxlength={2000} required>
          {props.description ?? ''}
        </textarea>
      </p>
      <p>
        <button type="submit">Record and insert the step</button>
      </p>
    </form>
  );
}

/**
 * "Insert a step here" between the editor's steps: opens the insert form at that position. Shown only while the
 * draft is the saved version, whose positions the insertion uses.
 */
export function InsertHereLink(props: { base: string; testCaseId: string; at: number }) {
  const label = props.at === 0 ? 'Insert a step before step 1' : `Insert a step after step ${props.at}`;
  return (
    <p class="muted">
      <a href={`${props.base}/test-cases/${props.testCaseId}/steps/insert?at=${props.at}`}>{label}</a>
    </p>
  );
}
