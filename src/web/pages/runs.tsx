import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { duration, oneOf, Pager, pageNumber, Status, uuidPattern, When } from '../components.js';
import { notFoundPage, renderPage } from '../layout.js';
import {
  dashboardRun,
  dashboardRunUsage,
  dashboardRuns,
  recordedSteps,
  runTestArtifact,
  type RunStatus,
  type RunWithTests,
} from '../../services/dashboard.js';
import type { Step } from '../../domain/steps.js';
import { UsageText } from '../usage.js';
import type { UsageTotals } from '../../domain/llm-usage.js';

const runStatuses = ['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED'] as const satisfies readonly RunStatus[];
const pageSize = 25;
const isLive = (status: RunStatus) => status === 'INITIATED' || status === 'RUNNING';

type RunTest = RunWithTests['tests'][number];
interface Healed {
  index: number;
  from?: string | null;
  to: string;
  via: string;
  reason?: string;
}

export function registerRunPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/runs');

  web.get('/runs', async (c) => {
    const { projectId } = c.get('session');
    const query = {
      plan: c.req.query('plan') || undefined,
      status: oneOf(c.req.query('status'), runStatuses),
      branch: c.req.query('branch')?.trim() || undefined,
    };
    const page = pageNumber(c.req.query('page'));
    const { plans, rows, total } = await dashboardRuns(c.get('services'), projectId, {
      planShortId: query.plan,
      status: query.status,
      branch: query.branch,
      limit: pageSize,
      offset: (page - 1) * pageSize,
    });
    return renderPage(
      c,
      { title: 'Runs', nav: 'runs' },
      <>
        <h1>Runs</h1>
        <form class="filters" method="get" action={`${base}/runs`} role="search" aria-label="Filter runs">
          <label>
            Plan
            <select name="plan">
              <option value="">All plans</option>
              {plans.map((p) => (
                <option value={p.short_id} selected={p.short_id === query.plan}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select name="status">
              <option value="">Any status</option>
              {runStatuses.map((s) => (
                <option value={s} selected={s === query.status}>
                  {s}
                </option>
              ))}
            </select>
          </label>
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
          <table>
            <caption class="muted">Newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Plan</th>
                <th scope="col">Status</th>
                <th scope="col">Result</th>
                <th scope="col">Tests</th>
                <th scope="col">Branch</th>
                <th scope="col">Trigger</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
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
          </table>
        )}
        <Pager path={`${base}/runs`} query={query} page={page} pageSize={pageSize} total={total} />
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
        <RunBody c={c} run={run} steps={await failingSteps(c, run)} usage={await runUsage(c, run)} />
      </>,
    );
  });

  // The part of the run page that changes while it runs; htmx swaps it every 2 s until the run ends.
  web.get('/runs/:shortId/live', async (c) => {
    const run = await loadRun(c);
    if (!run) return c.text('Run not found', 404);
    return c.html(<RunBody c={c} run={run} steps={await failingSteps(c, run)} usage={await runUsage(c, run)} />);
  });

  web.get('/runs/:shortId/tests/:testId/screenshot.png', (c) => artifact(c, 'screenshot_key', 'image/png'));
  web.get('/runs/:shortId/tests/:testId/trace.zip', (c) => artifact(c, 'trace_key', 'application/zip'));
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

function RunBody(props: { c: Context<WebEnv>; run: RunWithTests; steps: Map<string, unknown>; usage: UsageTotals }) {
  const { run, c } = props;
  const base = c.get('base');
  const live = isLive(run.status);
  return (
    <div
      id="run-live"
      {...(live
        ? { 'hx-get': `${base}/runs/${run.short_id}/live`, 'hx-trigger': 'every 2s', 'hx-swap': 'outerHTML' }
        : {})}
    >
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status value={run.status} />
          {live && <span class="muted"> (updates live)</span>}
        </dd>
        <dt>Result</dt>
        <dd>
          <Status value={run.result} />
        </dd>
        <dt>Plan</dt>
        <dd>{run.plan_name ?? 'none'}</dd>
        <dt>Trigger</dt>
        <dd>{run.trigger}</dd>
        {run.branch && (
          <>
            <dt>Branch</dt>
            <dd>{run.branch}</dd>
          </>
        )}
        {run.commit_hash && (
          <>
            <dt>Commit</dt>
            <dd>
              <code>{run.commit_hash}</code>
            </dd>
          </>
        )}
        {run.rerun_of_short_id && (
          <>
            <dt>Rerun of</dt>
            <dd>
              <a href={`${base}/runs/${run.rerun_of_short_id}`}>{run.rerun_of_short_id}</a>
            </dd>
          </>
        )}
        <dt>Started</dt>
        <dd>
          <When at={run.started_at} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <When at={run.finished_at} />
        </dd>
        <dt>LLM usage</dt>
        <dd>
          <UsageText usage={props.usage} /> <span class="muted">(heals; replays need no model)</span>
        </dd>
        <dt>Compare</dt>
        <dd>
          <a href={`${base}/compare?a=${run.short_id}`}>Compare with another run</a>
        </dd>
      </dl>
      {run.error && (
        <p class="error" role="alert">
          {run.error}
        </p>
      )}
      <h2>Tests</h2>
      <TestTable base={base} tests={run.tests.filter((t) => !t.quarantined)} />
      {run.tests.some((t) => t.quarantined) && (
        <>
          <h2>Quarantined tests</h2>
          <p class="muted">They ran and report here, but their failures do not fail the run.</p>
          <TestTable base={base} tests={run.tests.filter((t) => t.quarantined)} />
        </>
      )}
      {run.tests
        .filter(
          (t) =>
            t.error ||
            t.screenshot_key ||
            t.trace_key ||
            ((t.healed as Healed[] | null) ?? []).length > 0 ||
            (t.changes ?? []).length > 0,
        )
        .map((t) => (
          <TestDetail
            base={base}
            run={run}
            test={t}
            steps={t.test_case_id ? (props.steps.get(t.test_case_id) as Step[] | null | undefined) : undefined}
          />
        ))}
    </div>
  );
}

function TestTable(props: { base: string; tests: RunTest[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Test</th>
          <th scope="col">Status</th>
          <th scope="col">Result</th>
          <th scope="col">Duration</th>
          <th scope="col">Healed steps</th>
          <th scope="col">Notes</th>
        </tr>
      </thead>
      <tbody>
        {props.tests.map((t) => (
          <tr>
            <td>
              {t.test_case_id ? <a href={`${props.base}/test-cases/${t.test_case_id}`}>{t.name}</a> : t.name}
              {!t.in_plan && <span class="muted"> (dependency)</span>}
            </td>
            <td>
              <Status value={t.status} />
              {t.status === 'RUNNING' && (
                <>
                  {' '}
                  <a href={`${props.base}/live/run-test/${t.id}`} aria-label={`Watch ${t.name} live`}>
                    Watch live
                  </a>
                </>
              )}
            </td>
            <td>
              <Status value={t.result} />
            </td>
            <td>{duration(t.duration_ms)}</td>
            <td>{((t.healed as Healed[] | null) ?? []).length}</td>
            <td>{testNotes(t).join(' · ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a reader should know beside the result: flaky, retried, what changed, why it failed. */
function testNotes(t: RunTest): string[] {
  const changes = t.changes ?? [];
  const regressions = changes.filter((c) => c.severity === 'regression').length;
  return [
    ...(t.flaky ? [`flaky: passed on attempt ${t.attempts}`] : t.attempts > 1 ? [`${t.attempts} attempts`] : []),
    ...(regressions ? [`${regressions} regression(s)`] : []),
    ...(changes.length > regressions ? [`${changes.length - regressions} cosmetic change(s)`] : []),
    ...(t.failure_kind ? [t.failure_kind] : []),
  ];
}

function TestDetail(props: { base: string; run: RunWithTests; test: RunTest; steps: Step[] | null | undefined }) {
  const { base, run, test: t } = props;
  const healed = (t.healed as Healed[] | null) ?? [];
  const artifacts = `${base}/runs/${run.short_id}/tests/${t.id}`;
  const failing =
    t.failed_step_index !== null && t.failed_step_index >= 0 ? props.steps?.[t.failed_step_index] : undefined;
  return (
    <section class="card" aria-labelledby={`t-${t.id}`}>
      <h3 id={`t-${t.id}`}>
        {t.name} <Status value={t.result ?? t.status} />
      </h3>
      {t.failed_step_index !== null && (
        <p>
          <strong>Failing step:</strong>{' '}
          {t.failed_step_index < 0 ? 'the start page did not open' : `step ${t.failed_step_index + 1}`}
          {failing && (
            <>
              {' '}
              — {failing.description} (
              <code>
                {failing.action}
                {failing.locator ? ` ${failing.locator}` : ''}
              </code>
              )
            </>
          )}
        </p>
      )}
      {t.failure_kind && (
        <p>
          <strong>Failure kind:</strong> {t.failure_kind}
          {t.evidence?.httpStatus !== undefined && <> (HTTP {t.evidence.httpStatus})</>}
          {t.evidence?.url && (
            <>
              {' '}
              on <code>{t.evidence.url}</code>
            </>
          )}
        </p>
      )}
      {t.error && <pre class="error">{t.error}</pre>}
      {t.evidence?.pageExcerpt && (
        <>
          <h4>What the page showed</h4>
          <pre>{t.evidence.pageExcerpt}</pre>
        </>
      )}
      {(t.changes ?? []).length > 0 && (
        <>
          <h4>Changes since the recording</h4>
          <ul>
            {(t.changes ?? []).map((c) => (
              <li>
                step {c.stepIndex + 1}: {c.summary}{' '}
                {c.severity === 'regression' ? <strong>(regression)</strong> : <span class="muted">(cosmetic)</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {healed.length > 0 && (
        <>
          <h4>Healed steps</h4>
          <ul>
            {healed.map((h) => (
              <li>
                step {h.index + 1} via {h.via}: <code>{h.to}</code>
                {h.from && (
                  <>
                    {' '}
                    (was <code>{h.from}</code>)
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {t.screenshot_key && (
        <img
          class="shot"
          src={`${artifacts}/screenshot.png`}
          alt={`Screenshot of ${t.name} where it stopped`}
          loading="lazy"
        />
      )}
      {t.trace_key && (
        <p>
          <a href={`${base}/trace-viewer/index.html?trace=${encodeURIComponent(`${artifacts}/trace.zip`)}`}>
            Open the trace of {t.name}
          </a>
          {' · '}
          <a href={`${artifacts}/trace.zip`} download>
            Download trace
          </a>
        </p>
      )}
    </section>
  );
}
