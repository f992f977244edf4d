import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import { Status, uuidPattern } from '../components.js';
import { CsrfField, notFoundPage, renderPage } from '../layout.js';
import { routesAbout } from '../found.js';
import { applyOp, readDraft, readOp, type DraftStep } from '../step-editor-form.js';
import { StepBlock } from '../step-editor-block.js';
import { InsertHereLink, StepInsertForm } from '../step-insert-form.js';
import { registerStepInsertPages } from './step-insert.js';
import { loadStepEditor, saveEditedSteps, type StepEditorData } from '../../services/step-edits.js';
import { sessionActor } from '../../services/audit-log.js';
import { runTestCases } from '../../services/runs.js';
import { insertionRefusal } from '../../services/step-insert-checks.js';
import { StepEditError, type StepEditProblem } from '../../domain/step-edits.js';
import { ConflictError } from '../../domain/errors.js';

// The step editor of a test case's current steps version. The routes sit under /test-cases, whose area
// (session, CSRF, compression) pages/test-cases.tsx declares. The whole draft is in the form: moving or deleting
// a step re-renders it unsaved, and only "Save" writes a new version (then redirects back: POST-redirect-GET).
// With htmx the form posts in place and only the editor is swapped.

export function registerStepEditorPages(web: Hono<WebEnv>, base: string): void {
  const testCaseRoutes = routesAbout(web, load, 'This test case');
  testCaseRoutes.get('/test-cases/:id/steps', async (c, data) => {
    const saved = Number(c.req.query('saved'));
    return editorPage(
      c,
      data,
      data.steps.map((step, from) => ({ from, step })),
      [],
      Number.isInteger(saved) && saved === data.version ? saved : undefined,
    );
  });

  testCaseRoutes.post('/test-cases/:id/steps', async (c, data) => {
    const body = await c.req.parseBody();
    const basedOn = Number(body.version);
    const draft = basedOn === data.version ? readDraft(body, data.steps) : undefined;
    const op = readOp(body);
    // A draft of another version (or a malformed one) cannot be applied to these steps: start again from them.
    if (!draft || !op) return stale(c, data);
    if (op.kind !== 'save') return editorPage(c, data, applyOp(draft, op), []);
    try {
      const { version } = await saveEditedSteps(c.get('services'), {
        projectId: c.get('session').projectId,
        testCaseId: data.testCase.id,
        basedOnVersion: basedOn,
        steps: draft.map((d) => d.step),
        actor: sessionActor(c.get('session').tokenId),
      });
      return c.redirect(`${base}/test-cases/${data.testCase.id}/steps?saved=${version}`, 303);
    } catch (err) {
      if (err instanceof StepEditError) return editorPage(c, data, draft, err.problems, undefined, 400);
      // A heal or another person saved between this page's read and its write.
      if (err instanceof ConflictError) {
        const fresh = await load(c);
        if (fresh) return stale(c, fresh);
      }
      throw err;
    }
  });

  // "Verify": one run of this test (with its dependencies), as the API's run of chosen test cases.
  web.post('/test-cases/:id/verify', async (c) => {
    const id = testCaseId(c);
    if (!id) return notFoundPage(c, 'This test case');
    const run = await runTestCases(c.get('services'), {
      projectId: c.get('session').projectId,
      testCaseIds: [id],
      meta: { trigger: 'dashboard' },
    });
    return c.redirect(`${base}/runs/${run.shortId}`, 303);
  });

  registerStepInsertPages(web, base);
}

const testCaseId = (c: Context<WebEnv>) => {
  const id = c.req.param('id')?.toLowerCase();
  return id && uuidPattern.test(id) ? id : undefined;
};

async function load(c: Context<WebEnv>): Promise<StepEditorData | undefined> {
  const id = testCaseId(c);
  return id ? loadStepEditor(c.get('services'), c.get('session').projectId, id) : undefined;
}

/** The current steps again, with word that the person's draft was of an older version and was not saved. */
function stale(c: Context<WebEnv>, data: StepEditorData) {
  const message = `The steps changed since you opened them (now version ${data.version}): your edits were not saved; here are the current steps.`;
  return editorPage(
    c,
    data,
    data.steps.map((step, from) => ({ from, step })),
    [{ index: -1, field: 'steps', message }],
    undefined,
    409,
  );
}

async function editorPage(
  c: Context<WebEnv>,
  data: StepEditorData,
  draft: DraftStep[],
  problems: StepEditProblem[],
  saved?: number,
  status: 200 | 400 | 409 = 200,
) {
  // A test that cannot take an inserted step is offered none, and told why (services/step-insert-checks.ts).
  const noInsert =
    data.steps.length > 0
      ? (await insertionRefusal(c.get('services'), c.get('session').projectId, data.testCase.id))?.message
      : undefined;
  const content = (
    <StepEditor
      base={c.get('base')}
      csrfToken={c.get('csrfToken')}
      data={data}
      draft={draft}
      problems={problems}
      saved={saved}
      noInsert={noInsert}
    />
  );
  // htmx swaps only 2xx answers: it gets the refusal as 200, a plain form post the real status.
  if (c.req.header('hx-request')) return c.html(content, 200);
  return renderPage(c, { title: `Steps of ${data.testCase.name}`, nav: 'test-cases' }, content, status);
}

function StepEditor(props: {
  base: string;
  csrfToken: string;
  data: StepEditorData;
  draft: DraftStep[];
  problems: StepEditProblem[];
  saved?: number;
  noInsert?: string;
}) {
  const { base, data, draft, problems } = props;
  const t = data.testCase;
  const action = `${base}/test-cases/${t.id}/steps`;
  const general = problems.filter((p) => p.index < 0);
  const unsaved =
    draft.length !== data.steps.length ||
    draft.some((d, k) => d.from !== k || JSON.stringify(d.step) !== JSON.stringify(data.steps[d.from]));
  const insertHere = !unsaved && !props.noInsert;
  return (
    <div id="step-editor">
      <h1>Steps of {t.name}</h1>
      <p>
        <a href={`${base}/test-cases/${t.id}`}>Back to the test case</a> · Burn-in:{' '}
        <Status value={t.generationStatus} />
      </p>
      {props.saved !== undefined && (
        <p class="notice" role="status">
          Saved as version {props.saved}. The next run uses it.
        </p>
      )}
      {general.map((p) => (
        <p class="error" role="alert">
          {p.message}
        </p>
      ))}
      {problems.length > general.length && (
        <p class="error" role="alert">
          Not saved: {problems.length - general.length} problem(s) below.
        </p>
      )}
      {data.steps.length === 0 ? (
        <p>No steps recorded yet: the editor opens once the burn-in has recorded them.</p>
      ) : (
        <>
          <form class="inline" method="post" action={`${base}/test-cases/${t.id}/verify`}>
            <CsrfField token={props.csrfToken} />
            <button type="submit">Verify: run version {data.version} once</button>
          </form>
          <form method="post" action={action} hx-post={action} hx-target="#step-editor" hx-swap="outerHTML">
            <CsrfField token={props.csrfToken} />
            <input type="hidden" name="version" value={String(data.version)} />
            <input type="hidden" name="count" value={String(draft.length)} />
            <p>
              Editing version {data.version}
              {unsaved ? ': unsaved changes' : ''}. Saving makes version {data.version + 1}; moving or deleting a step
              changes only this draft until then.
            </p>
            {/* First in the form, so Enter in a field saves (the browser submits with the first button). */}
            <p>
              <button class="primary" type="submit" name="op" value="save">
                Save as version {data.version + 1}
              </button>
            </p>
            {insertHere && <InsertHereLink base={base} testCaseId={t.id} at={0} />}
            {draft.map((d, k) => (
              <>
                <StepBlock
                  base={base}
                  k={k}
                  count={draft.length}
                  draft={d}
                  shot={data.screenshots.get(d.from)}
                  problems={problems.filter((p) => p.index === k)}
                />
                {insertHere && <InsertHereLink base={base} testCaseId={t.id} at={k + 1} />}
              </>
            ))}
            <p>
              <button class="primary" type="submit" name="op" value="save">
                Save as version {data.version + 1}
              </button>{' '}
              <a href={action}>Discard changes</a>
            </p>
          </form>
          {props.noInsert ? (
            <p class="muted" id="no-insert">
              A step cannot be inserted here: {props.noInsert}.
            </p>
          ) : (
            <StepInsertForm
              base={base}
              csrfToken={props.csrfToken}
              testCaseId={t.id}
              version={data.version}
              steps={data.steps}
            />
          )}
        </>
      )}
    </div>
  );
}
