import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, getSignedCookie, setCookie, setSignedCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { closeDashboardSession, findDashboardSession, sessionCookieKey } from '../services/access.js';
import { signInToDashboard, type DashboardSignIn } from '../services/dashboard-sign-in.js';
import { recordTokenUse } from '../services/token-use.js';
import { clientAddress } from './client-address.js';
import type { WebEnv } from './context.js';

export const SESSION_COOKIE = 'proctor_session';
const LOGIN_CSRF_COOKIE = 'proctor_login_csrf';
/** A dashboard session lasts a working day; signing in again is one paste of the token. */
export const SESSION_TTL_SECONDS = 12 * 3600;

const randomSecret = () => randomBytes(32).toString('base64url');

const cookieOptions = (c: Context<WebEnv>) => ({
  path: c.get('base') || '/',
  httpOnly: true,
  sameSite: 'Lax' as const,
  // Behind a TLS-terminating proxy the request arrives as http; the proxy says what the browser used.
  secure: new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https',
});

export const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Exchanges a project API token for a session cookie. The token itself is never stored in the cookie, the
 * page or a URL: only a random session id, signed, whose hash the database keeps.
 */
export async function signIn(
  c: Context<WebEnv>,
  token: string,
): Promise<Exclude<DashboardSignIn, { outcome: 'ok' }> | { outcome: 'ok' }> {
  const { db } = c.get('services');
  const opened = await signInToDashboard(c.get('services'), {
    token,
    clientAddress: clientAddress(c),
    ttlSeconds: SESSION_TTL_SECONDS,
  });
  if (opened.outcome !== 'ok') return opened;
  await recordTokenUse(c.get('deps'), opened.tokenId);
  await setSignedCookie(c, SESSION_COOKIE, opened.sessionId, await sessionCookieKey({ db }), {
    ...cookieOptions(c),
    maxAge: SESSION_TTL_SECONDS,
  });
  return { outcome: 'ok' };
}

async function sessionId(c: Context<WebEnv>): Promise<string | undefined> {
  const value = await getSignedCookie(c, await sessionCookieKey(c.get('services')), SESSION_COOKIE);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export async function signOut(c: Context<WebEnv>): Promise<void> {
  const id = await sessionId(c);
  if (id) await closeDashboardSession(c.get('services'), id);
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
}

/**
 * Every dashboard page and action sits behind this: the session's project is the only one its handlers
 * read. Without a live session a page or a form post goes to the sign-in form (a page comes back after); an
 * htmx request gets a 401 that tells htmx to load the sign-in page.
 */
export const requireSession = createMiddleware<WebEnv>(async (c, next) => {
  const id = await sessionId(c);
  const session = id ? await findDashboardSession(c.get('services'), id) : undefined;
  if (!session) {
    const login = `${c.get('base')}/login`;
    if (c.req.header('hx-request')) {
      c.header('HX-Redirect', login);
      return c.text('Sign in first', 401);
    }
    // A form posted after the session ended is not replayed: the person signs in and does it again.
    const path = new URL(c.req.url);
    return c.redirect(
      c.req.method === 'GET' ? `${login}?next=${encodeURIComponent(path.pathname + path.search)}` : login,
      303,
    );
  }
  c.set('session', session);
  c.set('csrfToken', session.csrfSecret);
  await next();
});

/**
 * CSRF check of a form post: the synchronizer token of the session, sent as the `_csrf` field or (htmx) the
 * `X-CSRF-Token` header. The cookie is SameSite=Lax already; the token also stops same-site attackers.
 */
export const verifyCsrf = createMiddleware<WebEnv>(async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const sent = c.req.header('x-csrf-token') ?? (await formField(c, '_csrf'));
    if (!sent || !safeEqual(sent, c.get('csrfToken')))
      return c.text('This form has expired or did not come from Proctor: reload the page and try again', 403);
  }
  await next();
});

async function formField(c: Context<WebEnv>, name: string): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!type.includes('application/x-www-form-urlencoded') && !type.includes('multipart/form-data')) return undefined;
  const value = (await c.req.parseBody())[name];
  return typeof value === 'string' ? value : undefined;
}

/** The sign-in form has no session yet: its CSRF token is a cookie echoed in a hidden field (double submit). */
export function issueLoginCsrf(c: Context<WebEnv>): string {
  const token = getCookie(c, LOGIN_CSRF_COOKIE) ?? randomSecret();
  setCookie(c, LOGIN_CSRF_COOKIE, token, { ...cookieOptions(c), maxAge: 3600 });
  return token;
}

export function loginCsrfValid(c: Context<WebEnv>, sent: string | undefined): boolean {
  const expected = getCookie(c, LOGIN_CSRF_COOKIE);
  return Boolean(expected && sent && safeEqual(sent, expected));
}
