// An API-call step (`http_request`): seeds or checks data over HTTP in the middle of a browser test. Its URL is
// relative to the environment; the method, headers and body may reference `{{configs}}` and run variables; it can
// assert the status and JSON values, and save JSON values as run variables for later steps.

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof httpMethods)[number];

export interface HttpStep {
  method: HttpMethod;
  /** Relative to the environment URL (`/api/notes`), or absolute. */
  url: string;
  headers?: Record<string, string>;
  /** Sent as is; JSON gets `content-type: application/json` unless a header says otherwise. */
  body?: string;
  /** The status the response must have; absent: any 2xx. */
  status?: number;
  /** JSON values the response must hold, e.g. `{ path: '$.items[0].name', equals: 'Milk' }`. */
  json?: Array<{ path: string; equals: string }>;
  /**
   * Run variables set from the response, e.g. `{ name: 'NOTE_ID', path: '$.id' }`, used later as `{{NOTE_ID}}`;
   * a `secret` one (an API token) is redacted like a secret config.
   */
  save?: Array<{ name: string; path: string; secret?: boolean }>;
}

type Segment = string | number;

/** The segments of a simple JSON path (`$.a.b[0]`, `$["a b"]`), or undefined when it is not one. */
export function parseJsonPath(path: string): Segment[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segments: Segment[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let at = 1;
  while (at < path.length) {
    pattern.lastIndex = at;
    const m = pattern.exec(path);
    if (!m) return undefined;
    segments.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]!.replace(/\\(.)/g, '$1')));
    at = pattern.lastIndex;
  }
  return segments;
}

/** The value at `path` in `doc`: `{ found: false }` when any segment is missing. */
export function readJsonPath(doc: unknown, path: string): { found: true; value: unknown } | { found: false } {
  const segments = parseJsonPath(path);
  if (!segments) return { found: false };
  let current: unknown = doc;
  for (const s of segments) {
    if (
      typeof s === 'number'
        ? !Array.isArray(current) || s >= current.length
        : current === null || typeof current !== 'object' || !(s in current)
    )
      return { found: false };
    current = (current as Record<string | number, unknown>)[s];
  }
  return { found: true, value: current };
}

/** A JSON value as a step compares and saves it: strings as they are, everything else as JSON. */
export function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Why the step's definition cannot run, for the agent or a 400; undefined when it can. */
export function httpStepProblem(step: HttpStep): string | undefined {
  if (!(httpMethods as readonly string[]).includes(step.method)) return `method: one of ${httpMethods.join(', ')}`;
  if (!step.url) return 'url: required';
  if (step.status !== undefined && (!Number.isInteger(step.status) || step.status < 100 || step.status > 599))
    return 'status: an HTTP status from 100 to 599';
  for (const p of [...(step.json ?? []), ...(step.save ?? [])])
    if (!parseJsonPath(p.path)) return `path "${p.path}": a simple JSON path like $.items[0].id`;
  for (const s of step.save ?? [])
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(s.name))
      return `save: "${s.name}" is not a variable name (letters, digits, _)`;
  return undefined;
}
