import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, joined, Table, When } from '../components.js';
import { notFoundPage, renderPage } from '../layout.js';
import { dashboardPlans, loadPlan, type NotifyOn } from '../../services/dashboard.js';
import { RunPlanButton } from './plan-forms.js';
import { TrendChart } from '../trend-charts.js';
import { percent, trendWindow } from '../../domain/trends.js';
import { planPassRates, planTrend } from '../../services/trends.js';
import { DeleteScheduleButton, ScheduleForm } from './schedule-forms.js';

/** A plan's pass rate in the list: the figure and over how many runs, in words. */
function PassRate(props: { rate: { passRate: number; finished: number } | undefined }) {
  if (!props.rate) return <span class="muted">no finished run</span>;
  const { passRate, finished } = props.rate;
  return (
    <>
      {percent(passRate)} <span class="muted">of {finished}</span>
    </>
  );
}

const notifyOnLabel: Record<NotifyOn, string> = { failure: 'on failure', always: 'after every run' };

export function registerTestPlanPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/test-plans');

  web.get('/test-plans', async (c) => {
    const [plans, rates] = await Promise.all([
      dashboardPlans(c.get('services'), c.get('session').projectId),
      planPassRates(c.get('services'), c.get('session').projectId),
    ]);
    return renderPage(
      c,
      { title: 'Test plans', nav: 'test-plans' },
      <>
        <h1>Test plans</h1>
        <p>
          <a href={`${base}/new/test-plan`}>Create a test plan</a>
        </p>
        {plans.length === 0 ? (
          <p>No test plans yet.</p>
        ) : (
          <Table label="Test plans">
            <ColumnHeads
              names={['Plan', 'Test cases', 'Schedules', `Pass rate (last ${trendWindow} runs)`, 'Description']}
            />
            <tbody>
              {plans.map((p) => (
                <tr>
                  <td>
                    <a href={`${base}/test-plans/${p.shortId}`}>{p.name}</a>
                    {p.isDefault && <span class="muted"> (default)</span>}
                  </td>
                  <td>{p.testCaseCount}</td>
                  <td>{p.scheduleCount}</td>
                  <td>
                    <PassRate rate={rates.get(p.shortId)} />
                  </td>
                  <td>{p.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </>,
    );
  });

  web.get('/test-plans/:shortId', async (c) => {
    const projectId = c.get('session').projectId;
    const [page, trend] = await Promise.all([
      loadPlan(c.get('services'), projectId, c.req.param('shortId')),
      planTrend(c.get('services'), projectId, c.req.param('shortId')),
    ]);
    if (!page) return notFoundPage(c, 'This test plan');
    const { plan, notifications } = page;
    return renderPage(
      c,
      { title: plan.name, nav: 'test-plans' },
      <>
        <h1>{plan.name}</h1>
        <RunPlanButton base={base} csrf={c.get('csrfToken')} shortId={plan.shortId} />
        <p>
          <a href={`${base}/test-plans/${plan.shortId}/edit`}>Edit the plan</a>
        </p>
        <p>
          <img
            src={`${base}/start/badge.svg?plan=${encodeURIComponent(plan.shortId)}`}
            alt="Status of this plan's latest run"
          />
        </p>
        <dl class="facts">
          <dt>Short id</dt>
          <dd>
            <code>{plan.shortId}</code>
            {plan.isDefault && <span class="muted"> (the project's default plan)</span>}
          </dd>
          {plan.description && (
            <>
              <dt>Description</dt>
              <dd>{plan.description}</dd>
            </>
          )}
          {plan.owner && (
            <>
              <dt>Owner</dt>
              <dd>{plan.owner}</dd>
            </>
          )}
          <dt>Runs</dt>
          <dd>
            <a href={`${base}/runs?plan=${encodeURIComponent(plan.shortId)}`}>Runs of this plan</a>
          </dd>
          <dt>Updated</dt>
          <dd>
            <When at={plan.updatedAt} />
          </dd>
        </dl>

        <h2>Last runs</h2>
        <TrendChart trend={trend} base={base} what="plan" prefix="tp" />

        <h2>Test cases</h2>
        {plan.testCases.length === 0 ? (
          <p>None: a run of this plan has nothing to do.</p>
        ) : (
          <ol>
            {plan.testCases.map((t) => (
              <li>
                <a href={`${base}/test-cases/${t.id}`}>{t.name}</a>
              </li>
            ))}
          </ol>
        )}

        <h2>Environments</h2>
        {page.applications.length === 0 ? (
          <p>Each application runs against its default environment.</p>
        ) : (
          <Table label="Environments">
            <ColumnHeads names={['Application', 'Environment', 'URL']} />
            <tbody>
              {page.applications.map((a) => (
                <tr>
                  <td>{a.applicationName}</td>
                  <td>{a.environmentName}</td>
                  <td>{a.environmentUrl ?? <span class="muted">a build</span>}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}

        <h2>Schedules</h2>
        {page.schedules.length === 0 ? (
          <p>Not scheduled.</p>
        ) : (
          <Table label="Schedules">
            <ColumnHeads names={['Cron', 'Description', 'Next runs', 'Change']} />
            <tbody>
              {page.schedules.map((s) => (
                <tr>
                  <td>
                    <code>{s.cron}</code>
                  </td>
                  <td>{s.description ?? ''}</td>
                  <td>
                    {s.nextRunTimes ? (
                      joined(s.nextRunTimes, (t) => <When at={t} />)
                    ) : (
                      <span class="muted">Temporal did not answer</span>
                    )}
                  </td>
                  <td>
                    <DeleteScheduleButton
                      base={base}
                      csrf={c.get('csrfToken')}
                      planShortId={plan.shortId}
                      schedule={s}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}

        <ScheduleForm base={base} csrf={c.get('csrfToken')} planShortId={plan.shortId} form={{}} errors={{}} />

        <h2>Notifications</h2>
        <ul>
          <li>
            E-mail:{' '}
            {notifications.email ? (
              <>
                {notifications.email.recipients.join(', ')} ({notifyOnLabel[notifications.email.notifyOn]})
              </>
            ) : (
              'none'
            )}
          </li>
          <li>
            Chat webhook:{' '}
            {notifications.slack ? (
              <>
                {notifications.slack.webhookHost}
                {notifications.slack.channel && ` ${notifications.slack.channel}`} (
                {notifyOnLabel[notifications.slack.notifyOn]})
              </>
            ) : (
              'none'
            )}
          </li>
        </ul>
      </>,
    );
  });
}
