import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import {
  ColumnHeads,
  FilterSelect,
  listPageSize,
  listWindow,
  oneOf,
  pageNumber,
  Pager,
  Status,
  Table,
  uuidPattern,
  When,
} from '../components.js';
import { notFoundPage, renderPage } from '../layout.js';
import {
  dashboardRun,
  dashboardRunUsage,
  dashboardRuns,
  recordedSteps,
  runTestArtifact,
  runTestVisualImage,
  type RunStatus,
  type VisualImage,
  type RunWithTests,
} from '../../services/dashboard.js';
import { RunBody } from './run-detail.js';

const runStatuses = ['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED'] as const satisfies readonly RunStatus[];

export function registerRunPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/runs');

  web.get('/runs', async (c) => {
    const { projectId } = c.get('session');
    const query = {
      plan: c.req.query('plan') || undefined,
      status: oneOf(c.req.query('status'), runStatuses),
      branch: c.req.query('branch')?.trim() || undefined,
    };
    const { page, limit, offset } = listWindow(c.req.query('page'));
    const { plans, rows, total } = await dashboardRuns(c.get('services'), projectId, {
      planShortId: query.plan,
      status: query.status,
      branch: query.branch,
      limit,
      offset,
    });
    return renderPage(
      c,
      { title: 'Runs', nav: 'runs' },
      <>
        <h1>Runs</h1>
        <form class="filters" method="get" action={`${base}/runs`} role="search" aria-label="Filter runs">
          <FilterSelect
            label="Plan"
            name="plan"
            any="All plans"
            options={plans.map((p) => [p.short_id, p.name] as const)}
            selected={query.plan}
          />
          <FilterSelect label="Status" name="status" any="Any status" options={runStatuses} selected={query.status} />
          <label>
            Branch
            <input name="branch" value={query.branch ?? ''} />
          </label>
          <button type="submit">Filter</button>
        </form>
        {rows.length === 0 ? (
          <p>
            No runs match. New here? <a href={`${base}/start`}>Set up a first test</a>: from your application's URL to a
            green run.
          </p>
        ) : (
          <Table label="Runs">
            <caption class="muted">Newest first</caption>
            <ColumnHeads names={['Run', 'Plan', 'Status', 'Result', 'Tests', 'Branch', 'Trigger', 'Created']} />
            <tbody>
              {rows.map((r) => (
                <tr>
                  <td>
                    <a href={`${base}/runs/${r.short_id}`}>{r.short_id}</a>
                  </td>
                  <td>{r.plan_name ?? <span class="muted">none</span>}</td>
                  <td>
                    <Status value={r.status} />
                  </td>
                  <td>
                    <Status value={r.result} />
                  </td>
                  <td>{r.test_count}</td>
                  <td>{r.branch ?? ''}</td>
                  <td>{r.trigger}</td>
                  <td>
                    <When at={r.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <Pager path={`${base}/runs`} query={query} page={page} pageSize={listPageSize} total={total} />
      </>,
    );
  });

  web.get('/runs/:shortId', async (c) => {
    const run = await loadRun(c);
    if (!run) return notFoundPage(c, 'This run');
    return renderPage(
      c,
      { title: `Run ${run.short_id}`, nav: 'runs' },
      <>
        <h1>Run {run.short_id}</h1>
        {await runBody(c, run)}
      </>,
    );
  });

  // The part of the run page that changes while it runs; htmx swaps it every 2 s until the run ends.
  web.get('/runs/:shortId/live', async (c) => {
    const run = await loadRun(c);
    if (!run) return c.text('Run not found', 404);
    return c.html(await runBody(c, run));
  });

  web.get('/runs/:shortId/tests/:testId/screenshot.png', (c) => artifact(c, 'screenshot_key', 'image/png'));
  web.get('/runs/:shortId/tests/:testId/trace.zip', (c) => artifact(c, 'trace_key', 'application/zip'));
  // A visual check's images: the diff, the image the run took and the baseline it was compared with.
  web.get('/runs/:shortId/tests/:testId/visual/:step/:image', async (c) => {
    const testId = c.req.param('testId') ?? '';
    const step = Number(c.req.param('step'));
    const which = /^(diff|actual|baseline)\.png$/.exec(c.req.param('image') ?? '')?.[1] as VisualImage | undefined;
    if (!uuidPattern.test(testId) || !Number.isSafeInteger(step) || step < 0 || !which) return c.text('Not found', 404);
    const body = await runTestVisualImage(c.get('services'), {
      projectId: c.get('session').projectId,
      runShortId: c.req.param('shortId') ?? '',
      runTestId: testId,
      stepIndex: step,
      which,
    });
    if (!body) return c.text('Not found', 404);
    return c.body(body, 200, { 'content-type': 'image/png', 'cache-control': 'private, max-age=3600' });
  });
}

const loadRun = (c: Context<WebEnv>) =>
  dashboardRun(c.get('services'), c.get('session').projectId, c.req.param('shortId') ?? '');

// The recorded steps of the tests that failed at a step, to say which step it was in words.
async function failingSteps(c: Context<WebEnv>, run: RunWithTests): Promise<Map<string, unknown>> {
  const ids = run.tests.filter((t) => t.failed_step_index !== null && t.test_case_id).map((t) => t.test_case_id!);
  return recordedSteps(c.get('services'), c.get('session').projectId, [...new Set(ids)]);
}

// Screenshots and traces are read through the dashboard (the session's project only), so the trace viewer
// loads them from its own origin with no presigned URL to leak or expire.
async function artifact(c: Context<WebEnv>, column: 'screenshot_key' | 'trace_key', type: string) {
  const testId = c.req.param('testId') ?? '';
  if (!uuidPattern.test(testId)) return c.text('Not found', 404);
  const body = await runTestArtifact(c.get('services'), {
    projectId: c.get('session').projectId,
    runShortId: c.req.param('shortId') ?? '',
    runTestId: testId,
    which: column,
  });
  if (!body) return c.text('Not found', 404);
  return c.body(body, 200, { 'content-type': type, 'cache-control': 'private, max-age=3600' });
}

const runUsage = (c: Context<WebEnv>, run: RunWithTests) =>
  dashboardRunUsage(c.get('services'), c.get('session').projectId, run.id);

/** The part of the run page that changes while it runs: the page and its live refresh both draw it. */
const runBody = async (c: Context<WebEnv>, run: RunWithTests) => (
  <RunBody
    c={c}
    run={run}
    steps={await failingSteps(c, run)}
    usage={await runUsage(c, run)}
    testPage={pageNumber(c.req.query('tests'))}
  />
);
