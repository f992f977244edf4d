// A run with many failures, grouped (issue 36): by why they failed and by the step they failed at, so twenty
// tests failing at one renamed button read as one cause. Each test links to its detail on the page.
import type { FailureKind } from '../domain/verdicts.js';
import type { Step } from '../domain/steps.js';
import { ColumnHeads } from './components.js';

export interface FailedTest {
  id: string;
  name: string;
  kind: FailureKind | null;
  failedIndex: number | null;
  steps: Step[] | undefined;
  /** Whether its detail card is on the page (a link to it can be followed). */
  detailed: boolean;
}

const shown = 8;

function Tests(props: { tests: FailedTest[] }) {
  const more = props.tests.length - shown;
  return (
    <>
      {props.tests.slice(0, shown).map((t, i) => (
        <>
          {i > 0 && ', '}
          {t.detailed ? <a href={`#t-${t.id}`}>{t.name}</a> : t.name}
        </>
      ))}
      {more > 0 && <span class="muted">{` and ${more} more`}</span>}
    </>
  );
}

function stepKey(t: FailedTest): string {
  if (t.failedIndex === null) return 'no step recorded (the test did not reach its steps)';
  if (t.failedIndex < 0) return 'the start page did not open';
  const s = t.steps?.[t.failedIndex];
  return s ? `${s.action}${s.locator ? ` ${s.locator}` : ''}: ${s.description}` : `step ${t.failedIndex + 1}`;
}

function grouped(tests: FailedTest[], key: (t: FailedTest) => string): [string, FailedTest[]][] {
  const groups = new Map<string, FailedTest[]>();
  for (const t of tests) groups.set(key(t), [...(groups.get(key(t)) ?? []), t]);
  return [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
}

export function FailureGroups(props: { tests: FailedTest[] }) {
  if (props.tests.length < 2) return null;
  return (
    <section aria-labelledby="failure-groups">
      <h2 id="failure-groups">Failures grouped ({props.tests.length})</h2>
      <table>
        <caption>By failure kind</caption>
        <ColumnHeads names={['Kind', 'Tests', 'Which']} />
        <tbody>
          {grouped(props.tests, (t) => t.kind ?? 'not classified').map(([kind, tests]) => (
            <tr>
              <td>{kind}</td>
              <td>{tests.length}</td>
              <td>
                <Tests tests={tests} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>By failing step</caption>
        <ColumnHeads names={['Step', 'Tests', 'Which']} />
        <tbody>
          {grouped(props.tests, stepKey).map(([step, tests]) => (
            <tr>
              <td>
                <code class="wrap">{step}</code>
              </td>
              <td>{tests.length}</td>
              <td>
                <Tests tests={tests} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
