import type { Context } from 'hono';
import type { WebEnv } from '../context.js';
import { ColumnHeads, joined, Status, Table, When } from '../components.js';
import { CsrfField } from '../layout.js';
import { loadTestCasePage as loadTestCasePageData, type TestCasePageData } from '../../services/dashboard.js';
import type { Step } from '../../domain/steps.js';
import type { HealProposal } from '../../services/heal-proposals.js';
import { UsageText } from '../usage.js';
import { TrendChart } from '../trend-charts.js';
import type { RecordingCheck } from '../../domain/recording-check.js';

export type { TestCasePageData };

/** Everything the test case page shows, from the session's project only (undefined: no such test case there). */
export async function loadTestCasePage(
  c: Context<WebEnv>,
  id: string | undefined,
): Promise<TestCasePageData | undefined> {
  if (!id) return undefined;
  return loadTestCasePageData(c.get('services'), c.get('session').projectId, id);
}

export function TestCaseDetail(props: { base: string; csrfToken: string; data: TestCasePageData }) {
  const { base, csrfToken, data } = props;
  const t = data.testCase;
  const link = (id: string) => (
    <a href={`${base}/test-cases/${id}`}>
      {data.names.get(id) ?? data.dependents.find((d) => d.id === id)?.name ?? id}
    </a>
  );
  return (
    <>
      <h1>{t.name}</h1>
      <dl class="facts">
        <dt>Application</dt>
        <dd>{t.applicationName}</dd>
        <dt>Goal</dt>
        <dd>{t.goal ?? <span class="muted">none</span>}</dd>
        <dt>Expected result</dt>
        <dd>{t.expectedResult ?? <span class="muted">none</span>}</dd>
        <dt>Labels</dt>
        <dd>{t.labels.length > 0 ? t.labels.join(', ') : <span class="muted">none</span>}</dd>
        <dt>In plans</dt>
        <dd>
          {t.isEnabled ? 'Enabled: plan runs include it' : 'Disabled: plan runs leave it out'}{' '}
          <form class="inline" method="post" action={`${base}/test-cases/${t.id}/enabled`}>
            <CsrfField token={csrfToken} />
            <input type="hidden" name="enabled" value={t.isEnabled ? 'false' : 'true'} />
            <button type="submit">{t.isEnabled ? 'Disable' : 'Enable'}</button>
          </form>
        </dd>
        <dt>Flake rate</dt>
        <dd>
          {t.recentRuns > 0 ? (
            `${Math.round(t.flakeRate * 100)}% of its last ${t.recentRuns} finished run(s) passed only on a retry`
          ) : (
            <span class="muted">no finished runs yet</span>
          )}
        </dd>
        {t.quarantined && (
          <>
            <dt>Quarantined</dt>
            <dd>Yes: it runs and reports, but its failures fail neither a run nor a review</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <When at={t.createdAt} />
        </dd>
      </dl>

      <h2>Last runs</h2>
      <TrendChart trend={data.trend} base={base} what="test" prefix="tt" />

      <h2>Dependencies</h2>
      <ul>
        <li>
          Resumes from:{' '}
          {t.resumeFromDependencyProjectTestCaseId ? (
            link(t.resumeFromDependencyProjectTestCaseId)
          ) : (
            <span class="muted">nothing (starts in a fresh browser)</span>
          )}
        </li>
        <li>
          Waits for:{' '}
          {t.waitForDependenciesProjectTestCaseIds.length > 0 ? (
            joined(t.waitForDependenciesProjectTestCaseIds, link)
          ) : (
            <span class="muted">nothing</span>
          )}
        </li>
        <li>
          Needed by:{' '}
          {data.dependents.length > 0 ? (
            joined(data.dependents, (d) => <a href={`${base}/test-cases/${d.id}`}>{d.name}</a>)
          ) : (
            <span class="muted">no other test</span>
          )}
        </li>
      </ul>

      <BurnIn base={base} data={data} />

      <h2 id="versions">Step versions</h2>
      <p>Current version: {t.steps ? t.steps.version : <span class="muted">none recorded yet</span>}.</p>
      {data.proposals.length === 0 ? (
        <p class="muted">
          No heal proposals. A run that needs the model to re-find an element proposes new locators here when the
          project's heal policy is "review".
        </p>
      ) : (
        data.proposals.map((p) => <Proposal base={base} csrfToken={csrfToken} testCaseId={t.id} proposal={p} />)
      )}
    </>
  );
}

/** Burn-in status and the recorded steps; while the agent is recording it polls itself every 2 s. */
export function BurnIn(props: { base: string; data: TestCasePageData }) {
  const t = props.data.testCase;
  const live = t.generationStatus === 'GENERATING';
  return (
    <section
      id="burn-in"
      aria-labelledby="burn-in-title"
      aria-live="polite"
      {...(live
        ? { 'hx-get': `${props.base}/test-cases/${t.id}/burn-in`, 'hx-trigger': 'every 2s', 'hx-swap': 'outerHTML' }
        : {})}
    >
      <h2 id="burn-in-title">
        Burn-in: <Status value={t.generationStatus} />
      </h2>
      {live && (
        <p class="muted">
          The agent is recording the steps; this updates by itself.{' '}
          <a href={`${props.base}/live/burn-in/${t.id}`}>Watch the agent live</a>
        </p>
      )}
      <p>
        LLM usage: <UsageText usage={props.data.usage} />
      </p>
      {t.failureReason && (
        <p class="error" role="alert">
          {t.failureReason}
        </p>
      )}
      {t.recordingCheck && <RecordingCheckNote check={t.recordingCheck} />}
      {t.notCovered.length > 0 && (
        <div class="card" id="not-covered">
          <p>
            <strong>Not covered:</strong> the agent said it could not verify these parts of the goal, so a pass of this
            test does not prove them.
          </p>
          <ul>
            {t.notCovered.map((part) => (
              <li>{part}</li>
            ))}
          </ul>
        </div>
      )}
      {t.steps && t.steps.steps.length > 0 && (
        <>
          <p>
            <a href={`${props.base}/test-cases/${t.id}/steps`}>Edit the steps</a> ·{' '}
            <a href={`${props.base}/test-cases/${t.id}/export`} download>
              Download as a Playwright spec
            </a>
          </p>
          <Steps steps={t.steps.steps} caption={`Recorded steps, version ${t.steps.version}`} />
        </>
      )}
    </section>
  );
}

function Steps(props: { steps: Step[]; caption: string; changed?: Set<number> }) {
  return (
    <Table label={props.caption}>
      <caption>{props.caption}</caption>
      <ColumnHeads names={['#', 'Step', 'Action', 'Locator', 'Value']} />
      <tbody>
        {props.steps.map((s, i) => (
          <tr>
            <td>
              {i + 1}
              {props.changed?.has(i) && <strong> (healed)</strong>}
            </td>
            <td>{s.description}</td>
            <td>
              <code>{s.action}</code>
            </td>
            <td>
              {s.locator && <code>{s.locator}</code>}
              {(s.fallbacks ?? []).length > 0 && <span class="muted"> + {s.fallbacks!.length} fallback(s)</span>}
            </td>
            <td>{s.value && <code>{s.value}</code>}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

function Proposal(props: { base: string; csrfToken: string; testCaseId: string; proposal: HealProposal }) {
  const p = props.proposal;
  const action = (decision: 'accept' | 'reject') =>
    `${props.base}/test-cases/${props.testCaseId}/proposals/${p.version}/${decision}`;
  return (
    <section class="card" aria-labelledby={`proposal-${p.version}`}>
      <h3 id={`proposal-${p.version}`}>
        Version {p.version} proposed by a heal: <Status value={p.status} />
      </h3>
      <p>
        Based on version {p.basedOnVersion}, proposed <When at={p.createdAt} />
        {p.decidedAt && (
          <>
            , decided <When at={p.decidedAt} />
          </>
        )}
        .
      </p>
      <ul>
        {p.healed.map((h) => (
          <li>
            step {h.index + 1} via {h.via}: <code>{h.to}</code>
            {h.from && (
              <>
                {' '}
                instead of <code>{h.from}</code>
              </>
            )}
            {h.reason && <> ({h.reason})</>}
          </li>
        ))}
      </ul>
      {p.status === 'PENDING' && (
        <div>
          <form class="inline" method="post" action={action('accept')}>
            <CsrfField token={props.csrfToken} />
            <button class="primary" type="submit">
              Accept version {p.version}
            </button>
          </form>{' '}
          <form class="inline" method="post" action={action('reject')}>
            <CsrfField token={props.csrfToken} />
            <button type="submit">Reject version {p.version}</button>
          </form>
        </div>
      )}
      <details>
        <summary>Steps of version {p.version}</summary>
        <Steps
          steps={p.steps}
          caption={`Proposed steps, version ${p.version}`}
          changed={new Set(p.healed.map((h) => h.index))}
        />
      </details>
    </section>
  );
}

/** The burn-in's verifying replay (issue 32): whether the steps replayed in a fresh browser before they were saved. */
function RecordingCheckNote({ check }: { check: RecordingCheck }) {
  const again = check.rerecordedAfter.map((f) => `step ${f.failedStepIndex + 1} failed (${f.error})`);
  return (
    <p id="recording-check" class={check.status === 'PASSED' ? 'muted' : 'error'}>
      {check.status === 'PASSED'
        ? `Verified before saving: version ${check.stepsVersion ?? '?'} replayed in a fresh browser, with no model call, in ${(check.durationMs / 1000).toFixed(1)} s.`
        : `The recorded steps did not replay in a fresh browser (${check.attempts} attempts).`}
      {again.length > 0 && ` The agent recorded again after: ${again.join('; ')}.`}
    </p>
  );
}
