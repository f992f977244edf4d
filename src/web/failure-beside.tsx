// A failed test beside what was recorded (issue 36): the element the failing step was recorded on next to what the
// replay found there (role, name, text), both ends of a drag, and the step list with the failing step marked.
import type { FailureKind, StepChange } from '../domain/verdicts.js';
import type { Step, StepTarget } from '../domain/steps.js';

const fields = ['role', 'name', 'text'] as const;

/** A change of a drag's drop target names it so (the drop target is verified as a step "… (where it is dropped)"). */
const isDropEnd = (c: StepChange) => c.summary.includes('where it is dropped');

/**
 * What the replay found for one element, field by field: what a reported change says it became; "as recorded"
 * where replay reported no difference; nothing at all when no element matched.
 */
function foundValue(
  field: (typeof fields)[number],
  changes: StepChange[],
  missing: boolean,
): { text: string; changed: boolean } {
  if (missing) return { text: 'no element matched', changed: true };
  const change = changes.find((c) => c.field === field);
  if (!change) return { text: 'as recorded', changed: false };
  return { text: change.to === null ? '(none)' : change.to, changed: true };
}

function TargetTable(props: {
  caption: string;
  locator?: string;
  target?: StepTarget;
  changes: StepChange[];
  missing: boolean;
}) {
  return (
    <table class="beside">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Fact</th>
          <th scope="col">Recorded</th>
          <th scope="col">Found on replay</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => {
          const found = foundValue(f, props.changes, props.missing);
          return (
            <tr>
              <th scope="row">{f}</th>
              <td>{props.target?.[f] ?? <span class="muted">not recorded</span>}</td>
              <td class={found.changed ? 'differs' : 'muted'}>
                {found.changed && <strong>differs: </strong>}
                {found.text}
              </td>
            </tr>
          );
        })}
        {props.locator && (
          <tr>
            <th scope="row">locator</th>
            <td colspan={2}>
              <code class="wrap">{props.locator}</code>
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function FailureBeside(props: {
  testId: string;
  steps: Step[];
  failedIndex: number;
  kind: FailureKind | null;
  changes: StepChange[];
}) {
  const { steps, failedIndex } = props;
  const step = failedIndex >= 0 ? steps[failedIndex] : undefined;
  const atStep = props.changes.filter((c) => c.stepIndex === failedIndex);
  const missing = props.kind === 'element-missing';
  return (
    <>
      {step && (step.target || step.locator) && (
        <div class="beside-pair">
          <TargetTable
            caption={step.action === 'drag' ? 'The dragged element' : `The element of step ${failedIndex + 1}`}
            locator={step.locator}
            target={step.target}
            changes={atStep.filter((c) => !isDropEnd(c))}
            missing={missing}
          />
          {step.dropTarget && (
            <TargetTable
              caption="Where it is dropped"
              locator={step.dropTarget.locator}
              target={step.dropTarget.target}
              changes={atStep.filter(isDropEnd)}
              missing={missing}
            />
          )}
        </div>
      )}
      <h4 id={`steps-${props.testId}`}>Steps</h4>
      <ol class="steps" aria-labelledby={`steps-${props.testId}`}>
        {steps.map((s, i) => {
          const state = i < failedIndex ? 'done' : i === failedIndex ? 'failed' : 'not-run';
          return (
            <li class={state} aria-current={state === 'failed' ? 'step' : undefined}>
              <span class="step-state">
                {state === 'done' ? 'ran' : state === 'failed' ? 'failed here' : 'not run'}
              </span>{' '}
              {s.description}{' '}
              <code class="wrap">
                {s.action}
                {s.locator ? ` ${s.locator}` : ''}
                {s.dropTarget ? ` → ${s.dropTarget.locator}` : ''}
              </code>
            </li>
          );
        })}
      </ol>
    </>
  );
}
