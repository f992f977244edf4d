// A run with many failures, grouped (issue 36): by why they failed and by the step they failed at, so twenty
// tests failing at one renamed button read as one cause. Each test links to its detail on the page.
import type { FailureKind } from '../domain/verdicts.js';
import type { Step } from '../domain/steps.js';
import { ColumnHeads, joined } from './components.js';

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
      {joined(props.tests.slice(0, shown), (t) => (t.detailed ? <a href={`#t-${t.id}`}>{t.name}</a> : t.name))}
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

/** One grouping as a table: a row a group, largest first, with its tests. */
function GroupTable(props: {
  caption: string;
  by: string;
  tests: FailedTest[];
  keyOf: (t: FailedTest) => string;
  label: (key: string) => unknown;
}) {
  return (
    <table>
      <caption>{props.caption}</caption>
      <ColumnHeads names={[props.by, 'Tests', 'Which']} />
      <tbody>
        {grouped(props.tests, props.keyOf).map(([key, tests]) => (
          <tr>
            <td>{props.label(key)}</td>
            <td>{tests.length}</td>
            <td>
              <Tests tests={tests} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FailureGroups(props: { tests: FailedTest[] }) {
  if (props.tests.length < 2) return null;
  return (
    <section aria-labelledby="failure-groups">
      <h2 id="failure-groups">Failures grouped ({props.tests.length})</h2>
      <GroupTable
        caption="By failure kind"
        by="Kind"
        tests={props.tests}
        keyOf={(t) => t.kind ?? 'not classified'}
        label={(kind) => kind}
      />
      <GroupTable
        caption="By failing step"
        by="Step"
        tests={props.tests}
        keyOf={stepKey}
        label={(step) => <code class="wrap">{step}</code>}
      />
    </section>
  );
}
