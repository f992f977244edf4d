import type { Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import { createMiddleware } from 'hono/factory';
import { DEFAULT_MAX_BODY_BYTES } from '../config.js';
import type { WebEnv } from './context.js';
import { requireSession, verifyCsrf } from './session.js';

/**
 * Middleware is attached per area (a path and what lies under it), never with `use('*')`: the dashboard is
 * mounted at the root by default, where `*` would also catch `/v1` and `/docs`.
 */
function attach(web: Hono<WebEnv>, path: string, ...handlers: MiddlewareHandler<WebEnv>[]): void {
  for (const pattern of path === '/' ? ['/'] : [path, `${path}/*`]) web.use(pattern, ...handlers);
}

// Pages load only their own scripts and styles, cannot be framed (a hidden "Enable" button under a decoy) and
// post forms only to the dashboard.
const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

const pageDefaults = (base: string) =>
  createMiddleware<WebEnv>(async (c, next) => {
    c.set('base', base);
    await next();
    c.header('Content-Security-Policy', contentSecurityPolicy);
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'same-origin');
    c.header('X-Content-Type-Options', 'nosniff');
  });

/**
 * A form post is read whole (the CSRF check parses it) before anything else looks at it, so its size is bounded first:
 * a signed-in session, or anyone at the sign-in form, must not make the server buffer gigabytes. The API's default
 * body limit; a page that takes files sets its own, larger bound on its route before its area.
 */
const formBodyLimit = bodyLimit({
  maxSize: DEFAULT_MAX_BODY_BYTES,
  onError: (c) => c.text(`A form post is at most ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024} MiB`, 413),
});

/** Pages anyone may open (sign-in): the base path, bounded posts and compression. */
export function publicArea(web: Hono<WebEnv>, base: string, path: string): void {
  attach(web, path, pageDefaults(base), formBodyLimit, compress());
}

/**
 * Pages and actions of the signed-in project: bounded posts, a live session (else the sign-in form), a CSRF token on
 * every form post, compressed answers. Each page module calls this once for its path before adding routes.
 */
export function protectedArea(web: Hono<WebEnv>, base: string, path: string): void {
  attach(web, path, pageDefaults(base), formBodyLimit, compress(), requireSession, verifyCsrf);
}
