import type { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { makeBadge } from 'badge-maker';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { Status } from '../components.js';
import { renderPage } from '../layout.js';
import { projectBadgeState } from '../../services/badge.js';
import { dashboardApplications, dashboardPlans, dashboardRuns, dashboardTestCases } from '../../services/dashboard.js';

// The first run: from an empty project to a green run without a terminal. The page reads where the project is
// and points at the next thing to do; each step links to the form (or page) that does it, and each form sends the
// person on (a new application back here, a new test case to its burn-in, a plan to its "Run" button).

export function registerFirstRunPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/start');

  web.get('/start', async (c) => {
    const { projectId } = c.get('session');
    const [apps, tests, plans, runs] = await Promise.all([
      dashboardApplications(c.get('services'), projectId),
      dashboardTestCases(c.get('services'), projectId, {}, { limit: 100, offset: 0 }),
      dashboardPlans(c.get('services'), projectId),
      dashboardRuns(c.get('services'), projectId, { limit: 1, offset: 0 }),
    ]);
    const app = apps.find((a) => a.environments.some((e) => e.url));
    const test =
      tests.testCases.find((t) => t.isEnabled) ??
      tests.testCases.find((t) => t.generationStatus === 'COMPLETED') ??
      tests.testCases[0];
    const plan = plans.find((p) => p.testCaseCount > 0);
    const run = runs.rows[0];
    const steps: { title: string; done: boolean; body: Child }[] = [
      {
        title: 'Add your application and its URL',
        done: Boolean(app),
        body: app ? (
          <>
            {app.name} at <code>{app.environments.find((e) => e.url)!.url}</code>.{' '}
            <a href={`${base}/applications`}>Applications</a>
          </>
        ) : (
          <a href={`${base}/new/application?from=start`}>Add the application</a>
        ),
      },
      {
        title: 'If it needs a login, store the credentials',
        done: false,
        body: (
          <>
            Optional. <a href={`${base}/new/config?from=start`}>Add a config</a> (a secret is never shown again); a goal
            may use it as <code>{'{{NAME}}'}</code>.
          </>
        ),
      },
      {
        title: 'Write a first goal',
        done: Boolean(test),
        body: test ? (
          <>
            <a href={`${base}/test-cases/${test.id}`}>{test.name}</a>
          </>
        ) : app ? (
          <a href={`${base}/new/test-case?application=${encodeURIComponent(app.shortId)}`}>Write a test from a goal</a>
        ) : (
          'After the application.'
        ),
      },
      {
        title: 'Watch the burn-in',
        done: test?.generationStatus === 'COMPLETED',
        body: test ? (
          <>
            The agent records the steps: <Status value={test.generationStatus} /> (
            <a href={`${base}/test-cases/${test.id}`}>watch it</a>)
          </>
        ) : (
          'After the goal.'
        ),
      },
      {
        title: 'Enable the test',
        done: Boolean(test?.isEnabled),
        body: test ? (
          <>
            Plans run enabled tests only: press "Enable" on <a href={`${base}/test-cases/${test.id}`}>{test.name}</a>.
          </>
        ) : (
          'After the burn-in.'
        ),
      },
      {
        title: 'Put it in a plan',
        done: Boolean(plan),
        body: plan ? (
          <a href={`${base}/test-plans/${plan.shortId}`}>{plan.name}</a>
        ) : test ? (
          <a href={`${base}/new/test-plan?test=${test.id}`}>Create a test plan</a>
        ) : (
          'After the test.'
        ),
      },
      {
        title: 'Run the plan',
        done: Boolean(run),
        body: run ? (
          <>
            Latest run <a href={`${base}/runs/${run.short_id}`}>{run.short_id}</a>:{' '}
            <Status value={run.result ?? run.status} />
          </>
        ) : plan ? (
          <>
            Press "Run this plan" on <a href={`${base}/test-plans/${plan.shortId}`}>{plan.name}</a>.
          </>
        ) : (
          'After the plan.'
        ),
      },
    ];
    const next = steps.findIndex((s, i) => !s.done && i !== 1);
    return renderPage(
      c,
      { title: 'Get started', nav: 'start' },
      <>
        <h1>Get started</h1>
        <p>From your application's URL to a green run, here in the dashboard.</p>
        <ol class="first-run">
          {steps.map((s, i) => (
            <li aria-current={i === next ? 'step' : undefined}>
              <strong>{s.title}</strong>
              {s.done ? ' (done)' : i === next ? ' (next)' : ''}
              <br />
              {s.body}
            </li>
          ))}
        </ol>
        <h2>Status badge</h2>
        <p>
          <img
            src={`${base}/start/badge.svg`}
            alt={`Test status: ${(await projectBadgeState(c.get('services'), projectId, undefined)).message}`}
          />
        </p>
        <p class="muted">
          The latest run of the project. <a href={`${base}/project/badge`}>Make a badge URL for a README</a>.
        </p>
      </>,
    );
  });

  // The project's badge (or a plan's, `?plan=`) for the signed-in person: the session stands in for the badge token.
  web.get('/start/badge.svg', async (c) => {
    const state = await projectBadgeState(
      c.get('services'),
      c.get('session').projectId,
      c.req.query('plan') || undefined,
    );
    return c.body(makeBadge({ label: 'proctor', message: state.message, color: state.color }), 200, {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      'Cache-Control': 'no-cache, no-store, max-age=0',
    });
  });
}
