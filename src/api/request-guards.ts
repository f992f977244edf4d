import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from './context.js';
import { ApiError } from './errors.js';
import { readBounded as readStreamBounded } from '../streams.js';

// Postgres refuses U+0000 in text with a 500-worthy error deep inside a query; catching it here names the field.
const NUL = '\u0000';
const nulMessage = (field: string) => `${field}: must not contain the NUL character (U+0000)`;

// The same test hono's json validator applies, so a body this guard accepts is the body the route validates.
const jsonMediaType = /^application\/([\w.-]+\+)?json$/i;
const bodyMethods = new Set(['POST', 'PUT', 'PATCH']);

/** The largest body a path takes, and the setting that raises it (named in the 413). */
export interface BodyLimit {
  bytes: number;
  setting: string;
}

/**
 * Reads a /v1 request body once, at most the path's limit of it (413 beyond, whether Content-Length says so or
 * a chunked stream runs over), requires JSON, parses it and refuses NUL characters anywhere in it. The
 * route's validator gets the parsed value: the body is read and parsed once.
 */
export function jsonBodyGuard(limitFor: (path: string) => BodyLimit): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!bodyMethods.has(c.req.method)) return next();
    const text = await readBounded(c, limitFor(c.req.path));
    if (text.trim() === '') {
      // A PATCH of nothing is a client bug (a lost body), not a no-op to answer 200. Where no PATCH route
      // exists the request goes on to its 405.
      if (c.req.method === 'PATCH' && routeFor(c))
        throw new ApiError(400, 'Request body is required: a JSON object with the fields to change');
      // `curl -X POST -H 'Content-Type: application/json'` with no data means "no body", not malformed JSON.
      const headers = new Headers(c.req.raw.headers);
      headers.delete('content-type');
      headers.delete('content-length');
      c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers });
      return next();
    }
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
    if (!jsonMediaType.test(mediaType)) throw new ApiError(415, 'Content-Type must be application/json');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError(400, 'Malformed JSON in request body');
    }
    const field = nulIn(value, 'body', 0);
    if (field) throw new ApiError(400, nulMessage(field));
    // hono's `req.json()` (what the zod-openapi validators call) re-parses its cached text on every call;
    // this request's answer is the value parsed above. The text stays cached for `req.text()` (hono stores
    // promises in `bodyCache` although its type says values).
    c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
    c.req.json = <T>() => Promise.resolve(value as T);
    return next();
  };
}

/** Refuses NUL characters in path segments and query names or values, naming the parameter. */
export const paramGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  // Path segments and query parts are decoded once, so a NUL in them was either sent raw or as `%00`:
  // a URL with neither, nearly every one, needs no parsing here.
  if (!c.req.url.includes('%00') && !c.req.url.includes(NUL)) return next();
  const url = new URL(c.req.url);
  const segments = url.pathname.split('/');
  const bad = segments.findIndex((segment) => decode(segment).includes(NUL));
  if (bad !== -1) throw new ApiError(400, nulMessage(`path.${pathParamName(c, bad)}`));
  for (const [key, value] of url.searchParams) {
    if (key.includes(NUL) || value.includes(NUL))
      throw new ApiError(400, nulMessage(`query.${key.replaceAll(NUL, '\\u0000')}`));
  }
  return next();
};

async function readBounded(c: Context<AppEnv>, limit: BodyLimit): Promise<string> {
  const request = c.req.raw;
  const maxBytes = limit.bytes;
  // The rest of a refused body is never read: the connection cannot carry another request after it.
  const refuse = () => {
    c.header('Connection', 'close');
    return new ApiError(413, `Request body exceeds the ${maxBytes} byte limit (${limit.setting})`);
  };
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw refuse();
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  await readStreamBounded(request.body, maxBytes, (chunk) => chunks.push(chunk), refuse);
  return Buffer.concat(chunks).toString('utf8');
}

/** Deeper than any request the API takes (a step's target in a test case is about 5): a bound on the walk below too. */
export const maxJsonDepth = 32;

/**
 * The first JSON path (`body.labels.2`, `body.<key>`) whose key or string value holds a NUL. A body nested
 * deeper than `maxJsonDepth` is refused here, before the walk (or a validator) recurses into it without bound.
 */
function nulIn(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (value && typeof value === 'object' && depth >= maxJsonDepth)
    throw new ApiError(400, `${path}: nested deeper than ${maxJsonDepth} levels`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulIn(value[i], `${path}.${i}`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.includes(NUL)) return `${path}.${key.replaceAll(NUL, '\\u0000')}`;
      const found = nulIn(child, `${path}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The route (not middleware) that will answer this request, if one matches its method and path. */
const routeFor = (c: Context<AppEnv>) => matchedRoutes(c).find((route) => route.method === c.req.method);

// The route this request will reach names its parameters (`/v1/test-plans/:testPlanShortId`); a path no
// route matches is named by position.
function pathParamName(c: Context<AppEnv>, index: number): string {
  const name = routeFor(c)?.path.split('/')[index];
  return name?.startsWith(':') ? name.slice(1) : `segment ${index}`;
}
