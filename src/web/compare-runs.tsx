import { duration, Status } from './components.js';
import type { RunWithTests } from '../services/dashboard.js';
import type { Step } from '../domain/steps.js';
import { signalKinds, type SignalCounts } from '../domain/quality.js';

// The comparison of one test across two runs: a small table, one column per run, one row per fact.

type RunTest = RunWithTests['tests'][number];

export interface RunSide {
  run: RunWithTests;
  /** Current recorded steps of its tests that stopped at a step, by test case id. */
  steps: Map<string, Step[] | null>;
}

export interface TestPair {
  key: string;
  name: string;
  a?: RunTest;
  b?: RunTest;
  differs: boolean;
}

// A test is the same test in both runs by its test case (a renamed one stays one row); one without (deleted since) by name.
const keyOf = (t: RunTest) => t.test_case_id ?? `name:${t.name}`;

const signalText = (counts: SignalCounts | null | undefined) =>
  counts ? signalKinds.map((k) => `${counts[k] ?? 0} ${k}`).join(', ') : 'not recorded';

/** What the comparison holds a test to: two runs differ on it when any of these differ. */
const fingerprint = (t: RunTest | undefined) =>
  t
    ? JSON.stringify([
        t.result ?? t.status,
        t.failed_step_index,
        (t.changes ?? []).map((c) => c.summary),
        signalText(t.signal_counts),
      ])
    : 'absent';

/** The tests of both runs, paired, those that differ first (then by name). */
export function pairTests(a: RunWithTests, b: RunWithTests): TestPair[] {
  const pairs = new Map<string, TestPair>();
  for (const [side, run] of [
    ['a', a],
    ['b', b],
  ] as const) {
    for (const t of run.tests) {
      const pair = pairs.get(keyOf(t)) ?? { key: keyOf(t), name: t.name, differs: false };
      pair[side] = t;
      pairs.set(keyOf(t), pair);
    }
  }
  const all = [...pairs.values()].map((p) => ({ ...p, differs: fingerprint(p.a) !== fingerprint(p.b) }));
  return all.sort((x, y) => Number(y.differs) - Number(x.differs) || x.name.localeCompare(y.name));
}

export function CompareTest(props: { base: string; a: RunSide; b: RunSide; pair: TestPair }) {
  const { pair } = props;
  const id = `cmp-${pair.key.replace(/[^a-z0-9-]/gi, '-')}`;
  const row = (label: string, cell: (side: RunSide, t: RunTest) => unknown) => (
    <tr>
      <th scope="row">{label}</th>
      {(
        [
          [props.a, pair.a],
          [props.b, pair.b],
        ] as const
      ).map(([side, t]) => (
        <td>{t ? cell(side, t) : <span class="muted">not in this run</span>}</td>
      ))}
    </tr>
  );
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>
        {pair.name} {pair.differs ? <strong>(differs)</strong> : <span class="muted">(same)</span>}
      </h2>
      <table class="compare">
        <thead>
          <tr>
            <th scope="col">{pair.name}</th>
            <th scope="col">Run {props.a.run.short_id}</th>
            <th scope="col">Run {props.b.run.short_id}</th>
          </tr>
        </thead>
        <tbody>
          {row('Result', (_s, t) => (
            <Status value={t.result ?? t.status} />
          ))}
          {row('Duration', (_s, t) => duration(t.duration_ms))}
          {row('Failing step', (s, t) => failingStep(s, t))}
          {row('Changes', (_s, t) =>
            (t.changes ?? []).length === 0 ? (
              <span class="muted">none</span>
            ) : (
              <ul>
                {(t.changes ?? []).map((c) => (
                  <li>
                    step {c.stepIndex + 1}: {c.summary} ({c.severity})
                  </li>
                ))}
              </ul>
            ),
          )}
          {row('Signals', (_s, t) => signalText(t.signal_counts))}
          {row('Screenshot', (s, t) =>
            t.screenshot_key ? (
              <img
                class="shot"
                src={`${props.base}/runs/${s.run.short_id}/tests/${t.id}/screenshot.png`}
                alt={`${t.name} in run ${s.run.short_id} where it stopped`}
                loading="lazy"
              />
            ) : (
              <span class="muted">none</span>
            ),
          )}
        </tbody>
      </table>
    </section>
  );
}

function failingStep(side: RunSide, t: RunTest) {
  if (t.failed_step_index === null) return <span class="muted">none</span>;
  if (t.failed_step_index < 0) return 'the start page did not open';
  const step = t.test_case_id ? side.steps.get(t.test_case_id)?.[t.failed_step_index] : undefined;
  return (
    <>
      step {t.failed_step_index + 1}
      {step && <> — {step.description}</>}
      {t.error && <pre class="error">{t.error}</pre>}
    </>
  );
}
