import type { Coverage, FormCoverage, PatternCoverage, TestUse } from '../domain/coverage.js';
import { ColumnHeads, joined, When } from './components.js';

// The coverage page's tables (issue 34): every page pattern and every form of the map, with the tests that visit,
// act on and assert on each and when they last passed. Uncovered rows come first unless the page asks for path
// order: what no test covers is what a person opens the page for.

export type CoverageOrder = 'uncovered' | 'pattern';
export const coverageOrders: readonly CoverageOrder[] = ['uncovered', 'pattern'];

/** At most this many tests named per cell; the rest are counted. */
const testsPerCell = 5;
/** Rows per table and page: a map of hundreds of patterns stays within the page budget. */
export const coverageRowsPerPage = 100;

function Tests(props: { base: string; uses: TestUse[] }) {
  if (props.uses.length === 0) return <span class="muted">none</span>;
  const shown = props.uses.slice(0, testsPerCell);
  const more = props.uses.length - shown.length;
  return (
    <ul class="plain">
      {shown.map((u) => (
        <li>
          <a href={`${props.base}/test-cases/${u.testId}`}>{u.name}</a>
        </li>
      ))}
      {more > 0 && <li class="muted">and {more} more</li>}
    </ul>
  );
}

function Covered(props: { covered: boolean }) {
  return props.covered ? <span class="cov-yes">covered</span> : <strong class="cov-no">uncovered</strong>;
}

/** The rows of one page, in the order asked for. */
const ordered = <T extends { covered: boolean }>(
  rows: T[],
  view: { order: CoverageOrder; page: number },
  key: (row: T) => string,
) =>
  [...rows]
    .sort(
      (a, b) =>
        (view.order === 'uncovered' ? Number(a.covered) - Number(b.covered) : 0) ||
        (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0),
    )
    .slice((view.page - 1) * coverageRowsPerPage, view.page * coverageRowsPerPage);

function Caption(props: { what: string; shown: number; total: number; page: number }) {
  const first = (props.page - 1) * coverageRowsPerPage + 1;
  return (
    <caption>
      {props.what} (
      {props.shown === props.total ? props.total : `${first} to ${first + props.shown - 1} of ${props.total}`})
    </caption>
  );
}

export function PatternTable(props: {
  base: string;
  coverage: Coverage;
  titles: ReadonlyMap<string, string>;
  order: CoverageOrder;
  page: number;
}) {
  const forms = new Map(props.coverage.forms.map((f) => [f.id, f]));
  const rows = ordered(props.coverage.patterns, props, (p: PatternCoverage) => p.pattern);
  return (
    <table id="patterns">
      <Caption what="Page patterns" shown={rows.length} total={props.coverage.patterns.length} page={props.page} />
      <ColumnHeads
        names={['Pattern', 'Coverage', 'Title', 'Forms', 'Visited by', 'Acted on by', 'Asserted by', 'Last passed']}
      />
      <tbody>
        {rows.map((p) => (
          <tr class={p.covered ? undefined : 'uncovered'}>
            <th scope="row">
              <code>{p.pattern}</code>
            </th>
            <td>
              <Covered covered={p.covered} />
            </td>
            <td>{props.titles.get(p.pattern) ?? <span class="muted">–</span>}</td>
            <td>
              {p.forms.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                p.forms.map((id) => forms.get(id)?.name ?? id).join(', ')
              )}
            </td>
            <td>
              <Tests base={props.base} uses={p.visitedBy} />
            </td>
            <td>
              <Tests base={props.base} uses={p.actedOnBy} />
            </td>
            <td>
              <Tests base={props.base} uses={p.assertedBy} />
            </td>
            <td>
              <When at={p.lastPassedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FormTable(props: { base: string; forms: FormCoverage[]; order: CoverageOrder; page: number }) {
  const rows = ordered(props.forms, props, (f: FormCoverage) => `${f.patterns[0] ?? ''}\u0000${f.name}`);
  return (
    <table id="forms">
      <Caption what="Forms" shown={rows.length} total={props.forms.length} page={props.page} />
      <ColumnHeads
        names={['Form', 'Coverage', 'Sends', 'On', 'Acted on by', 'Submitted by', 'Asserted by', 'Last passed']}
      />
      <tbody>
        {rows.map((f) => (
          <tr class={f.covered ? undefined : 'uncovered'}>
            <th scope="row">{f.name}</th>
            <td>
              <Covered covered={f.covered} />
            </td>
            <td>
              <code>
                {f.method.toUpperCase()} {f.action || '(this page)'}
              </code>
            </td>
            <td>
              {joined(f.patterns, (p) => (
                <code>{p}</code>
              ))}
            </td>
            <td>
              <Tests base={props.base} uses={f.actedOnBy} />
            </td>
            <td>
              <Tests base={props.base} uses={f.submittedBy} />
            </td>
            <td>
              <Tests base={props.base} uses={f.assertedBy} />
            </td>
            <td>
              <When at={f.lastPassedAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
