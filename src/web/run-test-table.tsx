// The table of a run's tests. A large run's table is paged (the tests that did not pass first), so its page
// never holds thousands of rows; the timeline above it draws them all, by plan level.
import { ColumnHeads, duration, Status, Table } from './components.js';
import type { RunWithTests } from '../services/dashboard.js';

type RunTest = RunWithTests['tests'][number];

/** Rows per page of a run's test table. */
export const testPageSize = 200;

const rank = (t: RunTest) => (t.result === 'FAILED' || t.status === 'ERROR' ? 0 : t.status === 'SKIPPED' ? 1 : 2);

/** The tests on page `page` (1-based): all of them, in run order, when they fit on one page. */
export function testsOnPage(tests: RunTest[], page: number): RunTest[] {
  if (tests.length <= testPageSize) return tests;
  const ordered = [...tests].sort((a, b) => rank(a) - rank(b));
  return ordered.slice((page - 1) * testPageSize, page * testPageSize);
}

/** Previous and next links of a paged test table, keeping the page's other query. */
export function TestPager(props: { path: string; page: number; total: number }) {
  const last = Math.ceil(props.total / testPageSize);
  if (last <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages of tests">
      {props.page > 1 && <a href={`${props.path}?tests=${props.page - 1}`}>Previous tests</a>}
      <span>
        Tests {(props.page - 1) * testPageSize + 1}–{Math.min(props.total, props.page * testPageSize)} of{' '}
        {props.total.toLocaleString('en')} (failed and skipped first)
      </span>
      {props.page < last && <a href={`${props.path}?tests=${props.page + 1}`}>Next tests</a>}
    </nav>
  );
}

interface Healed {
  index: number;
}

export function TestTable(props: { base: string; tests: RunTest[] }) {
  return (
    <Table label="Tests of this run">
      <ColumnHeads names={['Test', 'Status', 'Result', 'Duration', 'Healed steps', 'Notes']} />
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
    </Table>
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
