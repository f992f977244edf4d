import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import { Status, uuidPattern } from '../components.js';
import { CsrfField, notFoundPage, renderPage } from '../layout.js';
import { routesAbout } from '../found.js';
import { StepInsertForm } from '../step-insert-form.js';
import { sessionActor } from '../../services/audit-log.js';
import { loadStepEditor, type StepEditorData } from '../../services/step-edits.js';
import { insertionRefusal } from '../../services/step-insert-checks.js';
import {
  cancelStepInsertion,
  getStepInsertionView,
  requestStepInsertion,
  type StepInsertionView,
} from '../../services/step-insert.js';
import { ConflictError, InvalidError } from '../../domain/errors.js';

// "Insert a step here" in the dashboard: the step editor's insert form posts here; an accepted insertion redirects
// (POST-redirect-GET) to its own page, which shows it recording and then the new version or why nothing was saved.
// Without JavaScript the page reloads itself (an HTTP Refresh header) while the agent records; the area
// (session, CSRF, compression) is /test-cases, declared by pages/test-cases.tsx.

/** How often the progress page reloads while the step is recorded. */
const refreshSeconds = 2;

export function registerStepInsertPages(web: Hono<WebEnv>, base: string): void {
  const testCaseRoutes = routesAbout(web, load, 'This test case');
  testCaseRoutes.post('/test-cases/:id/steps/insert', async (c, data) => {
    const body = await c.req.parseBody();
    const description = typeof body.description === 'string' ? body.description : '';
    const at = typeof body.at === 'string' && /^\d{1,4}$/.test(body.at) ? Number(body.at) : -1;
    try {
      const insertion = await requestStepInsertion(c.get('services'), {
        projectId: c.get('session').projectId,
        testCaseId: data.testCase.id,
        at,
        description,
        actor: sessionActor(c.get('session').tokenId),
      });
      return c.redirect(`${base}/test-cases/${data.testCase.id}/steps/insertions/${insertion.id}`, 303);
    } catch (err) {
      // Refused as the API refuses (same service): the form again, with what was typed and why.
      if (err instanceof InvalidError || err instanceof ConflictError)
        return refusedPage(c, data, err.message, { at, description }, err instanceof InvalidError ? 400 : 409);
      throw err;
    }
  });

  // The form alone, at a position chosen in the editor ("Insert a step after step 2").
  testCaseRoutes.get('/test-cases/:id/steps/insert', async (c, data) => {
    const at = Number(c.req.query('at'));
    // Refused up front (a mobile test, no environment URL, …): said at once rather than after the person typed the step.
    const refusal = await insertionRefusal(c.get('services'), c.get('session').projectId, data.testCase.id);
    return renderPage(
      c,
      { title: `Insert a step into ${data.testCase.name}`, nav: 'test-cases' },
      <FormPage
        c={c}
        data={data}
        typed={{ at: Number.isInteger(at) ? at : -1, description: '' }}
        refusal={refusal?.message}
        blocked
      />,
      refusal ? 409 : 200,
    );
  });

  // "Stop": cancels the recording; back to the insertion's page, which shows it end.
  web.post('/test-cases/:id/steps/insertions/:insertionId/cancel', async (c) => {
    const data = await load(c);
    const insertionId = c.req.param('insertionId')?.toLowerCase() ?? '';
    if (!data || !uuidPattern.test(insertionId)) return notFoundPage(c, 'This insertion');
    // An insertion that ended meanwhile is simply shown as it ended.
    await cancelStepInsertion(c.get('services'), {
      projectId: c.get('session').projectId,
      testCaseId: data.testCase.id,
      insertionId,
    }).catch((err: unknown) => {
      if (!(err instanceof ConflictError)) throw err;
    });
    return c.redirect(`${base}/test-cases/${data.testCase.id}/steps/insertions/${insertionId}`, 303);
  });

  web.get('/test-cases/:id/steps/insertions/:insertionId', async (c) => {
    const data = await load(c);
    const insertionId = c.req.param('insertionId')?.toLowerCase() ?? '';
    if (!data || !uuidPattern.test(insertionId)) return notFoundPage(c, 'This insertion');
    let insertion: StepInsertionView;
    try {
      insertion = await getStepInsertionView(
        c.get('services'),
        c.get('session').projectId,
        data.testCase.id,
        insertionId,
      );
    } catch {
      return notFoundPage(c, 'This insertion');
    }
    if (insertion.status === 'RUNNING') c.header('Refresh', String(refreshSeconds));
    return renderPage(
      c,
      { title: `Insert a step into ${data.testCase.name}`, nav: 'test-cases' },
      <InsertionPage base={base} csrfToken={c.get('csrfToken')} data={data} insertion={insertion} />,
    );
  });
}

async function load(c: Context<WebEnv>): Promise<StepEditorData | undefined> {
  const id = c.req.param('id')?.toLowerCase();
  return id && uuidPattern.test(id) ? loadStepEditor(c.get('services'), c.get('session').projectId, id) : undefined;
}

function refusedPage(
  c: Context<WebEnv>,
  data: StepEditorData,
  message: string,
  typed: { at: number; description: string },
  status: 400 | 409,
) {
  // A conflict is the test case's state (step-insert-checks.ts): no position or wording would help, so no form.
  return renderPage(
    c,
    { title: `Insert a step into ${data.testCase.name}`, nav: 'test-cases' },
    <FormPage c={c} data={data} typed={typed} refusal={message} blocked={status === 409} />,
    status,
  );
}

function FormPage(props: {
  c: Context<WebEnv>;
  data: StepEditorData;
  typed: { at: number; description: string };
  refusal?: string;
  blocked?: boolean;
}) {
  const { c, data, typed } = props;
  const base = c.get('base');
  return (
    <>
      <h1>Insert a step into {data.testCase.name}</h1>
      {props.refusal && (
        <p class="error" role="alert">
          {props.blocked ? 'A step cannot be inserted here' : 'Not started'}: {props.refusal}
        </p>
      )}
      {props.blocked && props.refusal ? null : data.steps.length > 0 ? (
        <StepInsertForm
          base={base}
          csrfToken={c.get('csrfToken')}
          testCaseId={data.testCase.id}
          version={data.version}
          steps={data.steps}
          at={typed.at >= 0 && typed.at <= data.steps.length ? typed.at : undefined}
          description={typed.description}
        />
      ) : (
        <p>No steps recorded yet: a step can be inserted once the burn-in has recorded them.</p>
      )}
      <p>
        <a href={`${base}/test-cases/${data.testCase.id}/steps`}>Back to the step editor</a>
      </p>
    </>
  );
}

function InsertionPage(props: { base: string; csrfToken: string; data: StepEditorData; insertion: StepInsertionView }) {
  const { base, data, insertion: ins } = props;
  const editor = `${base}/test-cases/${data.testCase.id}/steps`;
  const where = ins.at === 0 ? 'before the first step' : `after step ${ins.at}`;
  // The new version is shown only while it is the current one: a later save would make its positions wrong.
  const shown = ins.status === 'COMPLETED' && ins.version === data.version;
  return (
    <>
      <h1>Insert a step into {data.testCase.name}</h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status value={ins.status} />
        </dd>
        <dt>The step</dt>
        <dd>{ins.description}</dd>
        <dt>Where</dt>
        <dd>
          {where} of version {ins.basedOnVersion}
        </dd>
      </dl>
      {ins.status === 'RUNNING' && (
        <p role="status">
          Recording: the steps before it replay, then the agent records the step. This page reloads every{' '}
          {refreshSeconds} seconds until it is done (<a href="">reload now</a>).
        </p>
      )}
      {ins.status === 'RUNNING' && (
        <form method="post" action={`${base}/test-cases/${data.testCase.id}/steps/insertions/${ins.id}/cancel`}>
          <CsrfField token={props.csrfToken} />
          <button type="submit">Stop recording</button>
        </form>
      )}
      {ins.status === 'FAILED' && (
        <p class="error" role="alert">
          Nothing was saved: {ins.failureReason}
        </p>
      )}
      {ins.status === 'COMPLETED' && (
        <p class="notice" role="status">
          Saved as version {ins.version}: {ins.insertedSteps} step(s) recorded {where}. The next run uses it.
        </p>
      )}
      {shown && (
        <>
          <h2 id="inserted-version">Steps of version {data.version}</h2>
          <ol aria-labelledby="inserted-version">
            {data.steps.map((step, i) => {
              const inserted = i >= ins.at && i < ins.at + (ins.insertedSteps ?? 0);
              return (
                <li>
                  {inserted && <strong>New: </strong>}
                  <code>{step.action}</code> {step.description}
                </li>
              );
            })}
          </ol>
        </>
      )}
      {ins.status === 'COMPLETED' && !shown && <p>The steps have changed again since (now version {data.version}).</p>}
      <p>
        <a href={editor}>Open the step editor</a>
      </p>
    </>
  );
}
