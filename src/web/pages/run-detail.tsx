// A run's page as the dashboard shows it: its header and progress, the table of its tests, and each test's detail
// (the failing step in words, what a heal changed, the quality signals, the artifacts). The routes that load it
// are runs.tsx.
import type { Context } from 'hono';
import type { WebEnv } from '../context.js';
import { Status, When } from '../components.js';
import type { RunStatus, RunWithTests } from '../../services/dashboard.js';
import type { Step } from '../../domain/steps.js';
import { UsageText } from '../usage.js';
import { RunPicture } from '../run-picture.js';
import { TestPager, TestTable, testsOnPage } from '../run-test-table.js';
import { FailureBeside } from '../failure-beside.js';
import { VisualChangeList } from '../visual-changes.js';
import { FailureGroups } from '../failure-groups.js';
import type { UsageTotals } from '../../domain/llm-usage.js';

const isLive = (status: RunStatus) => status === 'INITIATED' || status === 'RUNNING';

type RunTest = RunWithTests['tests'][number];

interface Healed {
  index: number;
  from?: string | null;
  to: string;
  via: string;
  reason?: string;
}

export function RunBody(props: {
  c: Context<WebEnv>;
  run: RunWithTests;
  steps: Map<string, unknown>;
  usage: UsageTotals;
  /** The page of the test table (1-based). */
  testPage: number;
}) {
  const { run, c } = props;
  const base = c.get('base');
  const live = isLive(run.status);
  const stepsOf = (t: RunTest) =>
    t.test_case_id ? (props.steps.get(t.test_case_id) as Step[] | null | undefined) : undefined;
  const isFailure = (t: RunTest) => t.result === 'FAILED' || t.status === 'ERROR';
  const detailed = run.tests
    .filter(hasDetail)
    .sort((a, b) => Number(isFailure(b)) - Number(isFailure(a)))
    .slice(0, maxDetails);
  const shownIds = new Set(detailed.map((t) => t.id));
  const failed = run.tests.filter(isFailure);
  const path = `${base}/runs/${run.short_id}`;
  return (
    <div
      id="run-live"
      {...(live
        ? { 'hx-get': `${path}/live?tests=${props.testPage}`, 'hx-trigger': 'every 2s', 'hx-swap': 'outerHTML' }
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
      <RunPicture run={run} now={Date.now()} />
      <h2>Tests</h2>
      <TestTable base={base} tests={testsOnPage(run.tests, props.testPage).filter((t) => !t.quarantined)} />
      <TestPager path={path} page={props.testPage} total={run.tests.length} />
      {run.tests.some((t) => t.quarantined) && (
        <>
          <h2>Quarantined tests</h2>
          <p class="muted">They ran and report here, but their failures do not fail the run.</p>
          <TestTable base={base} tests={testsOnPage(run.tests, props.testPage).filter((t) => t.quarantined)} />
        </>
      )}
      <FailureGroups
        tests={failed.map((t) => ({
          id: t.id,
          name: t.name,
          kind: t.failure_kind,
          failedIndex: t.failed_step_index,
          steps: stepsOf(t) ?? undefined,
          detailed: shownIds.has(t.id),
        }))}
      />
      {detailed.map((t) => (
        <TestDetail base={base} run={run} test={t} steps={stepsOf(t)} />
      ))}
      {detailed.length < run.tests.filter(hasDetail).length && (
        <p class="muted">
          The first {maxDetails} of {run.tests.filter(hasDetail).length} tests with something to show are detailed here,
          failures first; the groups above name every failure.
        </p>
      )}
    </div>
  );
}

/** Detail cards on one page: a run with thousands of failures shows the first of them and groups them all. */
const maxDetails = 25;

const hasDetail = (t: RunTest) =>
  Boolean(t.error || t.screenshot_key || t.trace_key) ||
  ((t.healed as Healed[] | null) ?? []).length > 0 ||
  (t.changes ?? []).length > 0;

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
      {t.failed_step_index !== null && props.steps && (
        <FailureBeside
          testId={t.id}
          steps={props.steps}
          failedIndex={t.failed_step_index}
          kind={t.failure_kind}
          changes={t.changes ?? []}
        />
      )}
      {(t.evidence?.visualChanges ?? []).length > 0 && (
        <>
          <h4>Visual differences</h4>
          <VisualChangeList
            testName={t.name}
            changes={t.evidence!.visualChanges!.map((v) => {
              const at = `${artifacts}/visual/${v.stepIndex}`;
              return {
                stepIndex: v.stepIndex,
                step: props.steps?.[v.stepIndex]?.description ?? `step ${v.stepIndex + 1}`,
                target: v.locator ?? 'the page',
                ratio: v.ratio,
                diff: v.diffKey ? `${at}/diff.png` : null,
                actual: v.actualKey ? `${at}/actual.png` : null,
                baseline: v.baselineKey ? `${at}/baseline.png` : null,
              };
            })}
          />
        </>
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
