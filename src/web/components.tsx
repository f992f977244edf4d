// Small pieces the pages share.
import type { Child } from 'hono/jsx';

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A data table in a box of its own that scrolls sideways when the table is wider than the screen (a phone), so the
 * page itself never does. The box is a named region in the tab order, so a keyboard can scroll it too.
 */
export function Table(props: { label: string; children?: Child }) {
  return (
    <div class="table-box" role="region" aria-label={props.label} tabindex={0}>
      <table>{props.children}</table>
    </div>
  );
}

/** A table's header row: one column heading per name. */
export function ColumnHeads(props: { names: string[] }) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => (
          <th scope="col">{name}</th>
        ))}
      </tr>
    </thead>
  );
}

/** A status or result word, coloured by the stylesheet; colour is never the only signal (the word is there). */
export function Status(props: { value: string | null | undefined }) {
  return props.value ? <span class={`status ${props.value}`}>{props.value}</span> : <span class="muted">–</span>;
}

/** `items`, each as `render` draws it, with `separator` between two (", " unless given). */
export function joined<T>(items: readonly T[], render: (item: T) => Child, separator: string = ', '): Child[] {
  return items.map((item, i) => (
    <>
      {i > 0 && separator}
      {render(item)}
    </>
  ));
}

export function When(props: { at: Date | string | null | undefined }) {
  if (!props.at) return <span class="muted">–</span>;
  const iso = new Date(props.at).toISOString();
  return <time datetime={iso}>{iso.slice(0, 19).replace('T', ' ')} UTC</time>;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Previous/next links that keep the page's filters. */
export function Pager(props: {
  path: string;
  query: Record<string, string | undefined>;
  page: number;
  pageSize: number;
  total: number;
}) {
  const link = (page: number) => {
    const params = new URLSearchParams(
      Object.entries({ ...props.query, page: String(page) }).filter((e): e is [string, string] => Boolean(e[1])),
    );
    return `${props.path}?${params.toString()}`;
  };
  const last = Math.max(1, Math.ceil(props.total / props.pageSize));
  return (
    <nav class="pager" aria-label="Pages">
      {props.page > 1 && (
        <a href={link(props.page - 1)} rel="prev">
          Previous page
        </a>
      )}
      <span>
        Page {props.page} of {last} ({props.total} in all)
      </span>
      {props.page < last && (
        <a href={link(props.page + 1)} rel="next">
          Next page
        </a>
      )}
    </nav>
  );
}

/** A query parameter that must be one of `choices`; anything else means "no filter". */
export function oneOf<T extends string>(value: string | undefined, choices: readonly T[]): T | undefined {
  return choices.find((c) => c === value);
}

export const pageNumber = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
};

/** How many rows a list page shows at once (runs, test cases, issues, conversations, reviews, mail). */
export const listPageSize = 25;

/** The rows of the list page `?page=` asks for: its number, and the limit and offset that read them. */
export function listWindow(value: string | undefined): { page: number; limit: number; offset: number } {
  const page = pageNumber(value);
  return { page, limit: listPageSize, offset: (page - 1) * listPageSize };
}

/**
 * One filter of a list page: a choice among `options` (a value shown as itself, or `[value, label]`), or `any` (the
 * empty value) for no filter.
 */
export function FilterSelect(props: {
  label: string;
  name: string;
  any: string;
  options: readonly (string | readonly [value: string, label: string])[];
  selected: string | undefined;
}) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        <option value="">{props.any}</option>
        {props.options.map((option) => {
          const [value, label] = typeof option === 'string' ? [option, option] : option;
          return (
            <option value={value} selected={value === props.selected}>
              {label}
            </option>
          );
        })}
      </select>
    </label>
  );
}
