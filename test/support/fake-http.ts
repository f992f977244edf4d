// The plumbing the fake GitHub and GitLab servers share: a named route table over node `http`, JSON bodies,
// a record of every request and "answer N calls of route X with a 5xx" failure injection. The providers' own
// rules (authentication, shapes) live in fake-github.ts and fake-gitlab.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnFreePort } from './net.js';

export interface RecordedRequest {
  method: string;
  /** The path as received, without the query string and without a mount prefix (`/api/v3`, `/api/v4`). */
  path: string;
  /** The prefix the request came under (`/api/v3`, `/api/v4`), or '' at the root. */
  mount: string;
  query: URLSearchParams;
  /** The route's name (`pulls.get`, `notes.create`…), or undefined when no route matched. */
  route?: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or undefined. */
  body: unknown;
  /** The status the fake answered. */
  status: number;
}

export interface FakeRequest {
  method: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
  /** The absolute base the client used (`http://127.0.0.1:PORT/api/v3`), for Link headers and web URLs. */
  base: string;
}

export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface FakeRoute<Auth> {
  name: string;
  method: string;
  /** `/repos/:owner/:repo/pulls/:number`; each `:param` matches one path segment, percent-decoded. */
  pattern: string;
  handle(req: FakeRequest, auth: Auth): FakeReply;
}

/** A route of a fake server: its name (for failNext and the request log), method, pattern and handler. */
export const fakeRoute = <Auth>(
  name: string,
  method: string,
  pattern: string,
  handle: (req: FakeRequest, auth: Auth) => FakeReply,
): FakeRoute<Auth> => ({ name, method, pattern, handle });

export interface FakeServerOptions<Auth> {
  /** Path prefixes the routes are also served under (GitHub Enterprise's `/api/v3`, GitLab's `/api/v4`). */
  mounts: string[];
  routes: FakeRoute<Auth>[];
  /** Authenticates a request for a route: an Auth value, or a reply (401) that ends it. */
  authenticate(route: FakeRoute<Auth>, req: FakeRequest): Auth | FakeReply;
  /** The body of the injected failure reply. */
  failureBody(status: number): unknown;
}

export interface FakeHttpServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** Every request received, in order (including refused and failed ones). */
  requests: RecordedRequest[];
  /** Answers the next `count` calls of the named route (or `*` for any route) with `status` (default 503). */
  failNext(route: string, count: number, status?: number): void;
  close(): Promise<void>;
}

interface Failure {
  route: string;
  remaining: number;
  status: number;
}

function matchPattern(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    // Split before decoding: a GitLab project path arrives as one segment `group%2Fsub%2Fproject`.
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (g === '') return undefined;
      params[w.slice(1)] = decodeURIComponent(g);
    } else if (w !== g) return undefined;
  }
  return params;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function send(res: ServerResponse, reply: FakeReply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
    return;
  }
  res
    .writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    .end(JSON.stringify(reply.body));
}

export function isReply(value: unknown): value is FakeReply {
  return (
    typeof value === 'object' && value !== null && 'status' in value && typeof (value as FakeReply).status === 'number'
  );
}

/**
 * The 200 answer with one page of `items` for `page`/`per_page` paging, and its Link header (RFC 8288) and
 * `x-page`… headers, as both providers page lists.
 */
export function pagedReply(items: unknown[], req: FakeRequest, path: string, defaultPerPage: number): FakeReply {
  const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? defaultPerPage) || defaultPerPage));
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(req.query);
    q.set('page', String(p));
    q.set('per_page', String(perPage));
    return `<${req.base}${path}?${q.toString()}>; rel="${rel}"`;
  };
  const links = [
    ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
    ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
  ];
  const headers: Record<string, string> = {
    'x-page': String(page),
    'x-per-page': String(perPage),
    'x-total': String(items.length),
    'x-total-pages': String(last),
    'x-next-page': page < last ? String(page + 1) : '',
    'x-prev-page': page > 1 ? String(page - 1) : '',
  };
  if (links.length > 0) headers.link = links.join(', ');
  return { status: 200, body: slice, headers };
}

export async function startFakeHttpServer<Auth>(options: FakeServerOptions<Auth>): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const rawPath = (req.url ?? '/').split('?')[0]!;
    const mount = options.mounts.find((m) => rawPath === m || rawPath.startsWith(`${m}/`)) ?? '';
    const path = rawPath.slice(mount.length) || '/';
    const body = await readBody(req);
    const fakeReq: FakeRequest = {
      method: req.method ?? 'GET',
      params: {},
      query: url.searchParams,
      headers: req.headers,
      body,
      base: `http://${req.headers.host ?? '127.0.0.1'}${mount}`,
    };
    const record = (reply: FakeReply, route?: string) => {
      requests.push({
        method: fakeReq.method,
        path,
        mount,
        query: url.searchParams,
        route,
        headers: req.headers,
        body,
        status: reply.status,
      });
      send(res, reply);
    };

    let matched: { route: FakeRoute<Auth>; params: Record<string, string> } | undefined;
    for (const route of options.routes) {
      if (route.method !== fakeReq.method) continue;
      const params = matchPattern(route.pattern, path);
      if (params) {
        matched = { route, params };
        break;
      }
    }
    if (!matched) return record({ status: 404, body: { message: 'Not Found' } });
    const { route } = matched;
    fakeReq.params = matched.params;

    const failure = failures.find((f) => f.remaining > 0 && (f.route === route.name || f.route === '*'));
    if (failure) {
      failure.remaining -= 1;
      return record({ status: failure.status, body: options.failureBody(failure.status) }, route.name);
    }
    const auth = options.authenticate(route, fakeReq);
    if (isReply(auth)) return record(auth, route.name);
    let reply: FakeReply;
    try {
      reply = route.handle(fakeReq, auth);
    } catch (err) {
      reply = { status: 500, body: { message: `fake server bug: ${(err as Error).message}` } };
    }
    record(reply, route.name);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(route, count, status = 503) {
      failures.push({ route, remaining: count, status });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
