import type { Hono } from 'hono';
import { html } from 'hono/html';
import { Layout } from '../layout.js';
import type { WebEnv } from '../context.js';
import { publicArea, protectedArea } from '../area.js';
import { issueLoginCsrf, loginCsrfValid, signIn, signOut } from '../session.js';

// Where a sign-in may send the browser next: a path of the dashboard itself, never another site.
function safeNext(base: string, next: string | undefined): string {
  return next && next.startsWith(`${base}/`) && !next.startsWith('//') && !/[\\\r\n]/.test(next)
    ? next
    : `${base}/runs`;
}

// Says which limit was hit and when to come back; nothing about whether the token was right (it was not checked).
function throttledMessage(by: 'address' | 'prefix', retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait = minutes <= 1 ? 'a minute' : `${minutes} minutes`;
  const who = by === 'address' ? 'from your network address' : 'with tokens starting like this one';
  return `Too many failed sign-ins ${who}. Try again in ${wait}.`;
}

function LoginForm(props: { base: string; csrf: string; next: string; problem?: string }) {
  return (
    <Layout title="Sign in" base={props.base}>
      <div class="login">
        <h1>Sign in to Proctor</h1>
        <p>
          Paste a project API token (<code>prt_…</code>, from <code>proctor admin create-token</code> or the dev
          banner). It is exchanged for a session cookie and not kept in the browser.
        </p>
        {props.problem && (
          <p class="error" role="alert">
            {props.problem}
          </p>
        )}
        <form method="post" action={`${props.base}/login`}>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="next" value={props.next} />
          <label>
            API token
            <input type="password" name="token" autocomplete="off" required />
          </label>
          <button class="primary" type="submit">
            Sign in
          </button>
        </form>
      </div>
    </Layout>
  );
}

export function registerAuthPages(web: Hono<WebEnv>, base: string): void {
  publicArea(web, base, '/login');
  protectedArea(web, base, '/logout');

  web.get('/login', (c) => {
    const next = safeNext(base, c.req.query('next'));
    return c.html(html`<!doctype html>${(<LoginForm base={base} csrf={issueLoginCsrf(c)} next={next} />)}`);
  });

  web.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : undefined);
    const next = safeNext(base, field('next'));
    const again = (problem: string, status: 400 | 401 | 403 | 429) =>
      c.html(
        html`<!doctype html>${(<LoginForm base={base} csrf={issueLoginCsrf(c)} next={next} problem={problem} />)}`,
        status,
      );
    if (!loginCsrfValid(c, field('_csrf'))) return again('The sign-in form expired; please try again.', 403);
    const token = field('token');
    if (!token) return again('Enter an API token.', 400);
    const result = await signIn(c, token);
    if (result.outcome === 'throttled') {
      c.header('Retry-After', String(result.retryAfterSeconds));
      return again(throttledMessage(result.by, result.retryAfterSeconds), 429);
    }
    if (result.outcome === 'invalid') return again('That token is not a valid project API token.', 401);
    if (result.outcome === 'suspended') return again('The organization of this project is suspended.', 403);
    return c.redirect(next, 303);
  });

  web.post('/logout', async (c) => {
    await signOut(c);
    return c.redirect(`${base}/login`, 303);
  });
}
