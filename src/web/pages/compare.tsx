import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { renderPage } from '../layout.js';
import { CompareTest, pairTests, type RunSide } from '../compare-runs.js';
import { dashboardRun, dashboardRuns, recordedSteps, type RunWithTests } from '../../services/dashboard.js';
import type { Step } from '../../domain/steps.js';

// Two runs side by side, test by test: how a test did in each (status, duration, the step it stopped at, its
// screenshot, what changed since the recording, the quality signals it saw). Picked with a plain GET form.

const choices = 50;

export function registerComparePages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/compare');

  web.get('/compare', async (c) => {
    const { projectId } = c.get('session');
    const a = c.req.query('a')?.trim() || undefined;
    const b = c.req.query('b')?.trim() || undefined;
    const [recent, runA, runB] = await Promise.all([
      dashboardRuns(c.get('services'), projectId, { limit: choices, offset: 0 }),
      a ? dashboardRun(c.get('services'), projectId, a) : undefined,
      b ? dashboardRun(c.get('services'), projectId, b) : undefined,
    ]);
    const missing = [a && !runA ? a : undefined, b && !runB ? b : undefined].filter(Boolean);
    const options = recent.rows.map((r) => ({
      value: r.short_id,
      label: `${r.short_id} · ${r.plan_name ?? 'no plan'} · ${r.result ?? r.status}`,
    }));
    return renderPage(
      c,
      { title: runA && runB ? `Compare ${runA.short_id} and ${runB.short_id}` : 'Compare runs', nav: 'compare' },
      <>
        <h1>Compare runs</h1>
        <form class="filters" method="get" action={`${base}/compare`} aria-label="Choose two runs">
          <RunChoice name="a" label="First run" options={options} selected={a} />
          <RunChoice name="b" label="Second run" options={options} selected={b} />
          <button type="submit">Compare</button>
        </form>
        {missing.length > 0 && (
          <p class="error" role="alert">
            No run {missing.join(' or ')} in this project.
          </p>
        )}
        {runA && runB ? (
          <Comparison base={base} a={await side(c, runA)} b={await side(c, runB)} />
        ) : (
          <p class="muted">Choose two runs of the project, the newest {choices} are listed.</p>
        )}
      </>,
      missing.length > 0 ? 404 : 200,
    );
  });
}

function RunChoice(props: {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  selected?: string;
}) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        <option value="">Choose a run</option>
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === props.selected}>
            {o.label}
          </option>
        ))}
        {props.selected && !props.options.some((o) => o.value === props.selected) && (
          <option value={props.selected} selected>
            {props.selected}
          </option>
        )}
      </select>
    </label>
  );
}

// The recorded steps of the run's tests that stopped at a step, to say which step in words.
async function side(c: Context<WebEnv>, run: RunWithTests): Promise<RunSide> {
  const ids = [
    ...new Set(run.tests.filter((t) => t.failed_step_index !== null && t.test_case_id).map((t) => t.test_case_id!)),
  ];
  const steps = await recordedSteps(c.get('services'), c.get('session').projectId, ids);
  return { run, steps: steps as Map<string, Step[] | null> };
}

function Comparison(props: { base: string; a: RunSide; b: RunSide }) {
  const pairs = pairTests(props.a.run, props.b.run);
  const differing = pairs.filter((p) => p.differs).length;
  return (
    <>
      <p>
        <a href={`${props.base}/runs/${props.a.run.short_id}`}>Run {props.a.run.short_id}</a> (
        {props.a.run.result ?? props.a.run.status}) and{' '}
        <a href={`${props.base}/runs/${props.b.run.short_id}`}>run {props.b.run.short_id}</a> (
        {props.b.run.result ?? props.b.run.status}):{' '}
        <strong>
          {differing} of {pairs.length} test(s) differ
        </strong>{' '}
        in result, failing step, changes or signals.
      </p>
      {pairs.map((p) => (
        <CompareTest base={props.base} a={props.a} b={props.b} pair={p} />
      ))}
    </>
  );
}
