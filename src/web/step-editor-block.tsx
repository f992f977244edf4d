import { actionsWithValue, type StepEditField, type StepEditProblem } from '../domain/step-edits.js';
import { expectationKey, fieldName, type DraftStep } from './step-editor-form.js';

// One step of the step editor: what was recorded (screenshot, action, target), the fields a person may change,
// each with its problem beside it, and the buttons that move or delete it in the draft.

export function StepBlock(props: {
  base: string;
  k: number;
  count: number;
  draft: DraftStep;
  shot?: { runShortId: string; runTestId: string };
  problems: StepEditProblem[];
}) {
  const { k, draft } = props;
  const step = draft.step;
  const n = k + 1;
  const id = (f: string) => `s${k}-${f}`;
  const problemOf = (f: StepEditField) =>
    props.problems
      .filter((p) => p.field === f)
      .map((p) => p.message)
      .join('; ') || undefined;
  const expectation = expectationKey(step);
  const other = props.problems.filter(
    (p) => !['description', 'locator', 'fallbacks', 'value', 'expected'].includes(p.field),
  );
  return (
    <fieldset class="card step" id={`step-${n}`}>
      <legend>
        Step {n}: <code>{step.action}</code>
        {draft.from !== k && <span class="muted"> (was step {draft.from + 1})</span>}
      </legend>
      <input type="hidden" name={fieldName(k, 'from')} value={String(draft.from)} />
      {other.map((p) => (
        <p class="error" role="alert">
          {p.message}
        </p>
      ))}
      {props.shot && (
        <figure>
          <img
            class="shot"
            src={`${props.base}/runs/${props.shot.runShortId}/tests/${props.shot.runTestId}/screenshot.png`}
            alt={`Where run ${props.shot.runShortId} stopped at step ${draft.from + 1}`}
            loading="lazy"
          />
          <figcaption class="muted">
            Run <a href={`${props.base}/runs/${props.shot.runShortId}`}>{props.shot.runShortId}</a> stopped at this
            step.
          </figcaption>
        </figure>
      )}
      <Field
        id={id('description')}
        name={fieldName(k, 'description')}
        label={`Intent of step ${n}`}
        value={step.description}
        problem={problemOf('description')}
      />
      {(step.locator !== undefined || step.fallbacks !== undefined || step.target !== undefined) && (
        <>
          <Field
            id={id('locator')}
            name={fieldName(k, 'locator')}
            label={`Locator of step ${n}`}
            value={step.locator ?? ''}
            problem={problemOf('locator')}
            code
          />
          <Field
            id={id('fallbacks')}
            name={fieldName(k, 'fallbacks')}
            label={`Fallback locators of step ${n} (one per line)`}
            value={(step.fallbacks ?? []).join('\n')}
            problem={problemOf('fallbacks')}
            multiline
          />
        </>
      )}
      {step.target && (
        <p>
          Target as recorded: <code>{step.target.role}</code>
          {step.target.name !== undefined && <> named “{step.target.name}”</>}
          {step.target.text !== undefined && expectation !== 'text' && <> showing “{step.target.text}”</>}
        </p>
      )}
      {expectation && (
        <Field
          id={id('expected')}
          name={fieldName(k, 'expected')}
          label={`Expected text of step ${n}`}
          value={step.target?.[expectation] ?? ''}
          problem={problemOf('expected')}
        />
      )}
      {(step.value !== undefined || actionsWithValue.has(step.action)) && (
        <Field
          id={id('value')}
          name={fieldName(k, 'value')}
          label={step.action.startsWith('assert_') ? `Expected value of step ${n}` : `Value of step ${n}`}
          value={step.value ?? ''}
          problem={problemOf('value')}
        />
      )}
      <p>
        <button type="submit" name="op" value={`up:${k}`} disabled={k === 0}>
          Move step {n} up
        </button>{' '}
        <button type="submit" name="op" value={`down:${k}`} disabled={k === props.count - 1}>
          Move step {n} down
        </button>{' '}
        <button type="submit" name="op" value={`delete:${k}`}>
          Delete step {n}
        </button>
      </p>
    </fieldset>
  );
}

function Field(props: {
  id: string;
  name: string;
  label: string;
  value: string;
  problem?: string;
  code?: boolean;
  multiline?: boolean;
}) {
  const error = props.problem ? `${props.id}-error` : undefined;
  const common = {
    id: props.id,
    name: props.name,
    'aria-invalid': props.problem ? 'true' : undefined,
    'aria-describedby': error,
    class: props.code ? 'code' : undefined,
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={2}>
          {props.value}
        </textarea>
      ) : (
        <input {...common} value={props.value} />
      )}
      {props.problem && (
        <p class="error" id={error}>
          {props.problem}
        </p>
      )}
    </div>
  );
}
