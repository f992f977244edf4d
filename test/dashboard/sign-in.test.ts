import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { expectAccessible, openDashboard } from '../support/dashboard.js';
import { serveAppForTests } from '../support/served-app.js';
import { createToken, revokeToken, setOrganizationSuspended } from '../../src/db/queries/admin.js';

/**
 * The status of a form post. The server may answer (413) and close before the whole body is sent, which `fetch`
 * reports as a failed request: the answer is what counts, so it is read from the socket as it comes (a socket of
 * its own: the server closes the one it refused).
 */
function postStatus(url: string, cookie: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          cookie,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', (err) => setTimeout(() => reject(err), 1_000));
    req.end(body);
  });
}

describe('dashboard sign-in', () => {
  const served = serveAppForTests('postgres', openDashboard);

  it('sends a visitor to the sign-in form and back to the page asked for, with a session cookie the page cannot read', async () => {
    const { page } = served.front;
    await page.goto(`${served.front.url}/runs?status=RUNNING`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expectAccessible(page);
    await page.getByLabel('API token').fill('prt_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not a valid project API token');

    await page.getByLabel('API token').fill(served.api.tenant.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${served.front.url}/runs?status=RUNNING`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Runs');
    expect(await page.getByText('Project Shop').count()).toBe(1);

    const [cookie] = (await served.front.context.cookies()).filter((c) => c.name === 'proctor_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(cookie!.value).not.toContain(served.api.tenant.token);
    expect(await page.evaluate(() => document.cookie)).not.toContain('proctor_session');
    expect(await page.content()).not.toContain(served.api.tenant.token);
    expect(served.front.blocked).toEqual([]);
  });

  it('refuses a form post without the CSRF token and changes nothing', async () => {
    await served.front.signIn(served.api.tenant.token);
    const res = await served.front.context.request.post(`${served.front.url}/logout`, {
      form: { _csrf: 'forged' },
      maxRedirects: 0,
    });
    expect(res.status()).toBe(403);
    const without = await served.front.context.request.post(`${served.front.url}/logout`, {
      form: {},
      maxRedirects: 0,
    });
    expect(without.status()).toBe(403);
    await served.front.page.goto(`${served.front.url}/runs`);
    expect(new URL(served.front.page.url()).pathname).toBe('/runs');
  });

  it('bounds every form post before reading it: over 1 MiB is 413 at the sign-in form and in every area of the project, signed in or not', async () => {
    await served.front.signIn(served.api.tenant.token);
    const session = (await served.front.context.cookies()).find((c) => c.name === 'proctor_session')!;
    const oversized = `_csrf=x&name=${'a'.repeat(1024 * 1024)}`;
    const areas = [
      '/login',
      '/logout',
      '/start',
      '/new/application',
      '/applications/app_x',
      '/configs',
      '/project/settings',
      '/git',
      '/test-cases/tc/enabled',
      '/test-plans',
      '/runs/run_x/cancel',
      '/chats',
      '/live/burn-in/x/stop',
      '/tunnels/t/delete',
      '/inbox',
      '/issues',
      '/reviews',
      '/compare',
      '/files/x/delete',
    ];
    for (const cookie of [`proctor_session=${session.value}`, '']) {
      for (const path of areas) {
        expect([path, cookie !== '', await postStatus(`${served.front.url}${path}`, cookie, oversized)]).toEqual([
          path,
          cookie !== '',
          413,
        ]);
      }
    }
    // The session still works, and a post of ordinary size is not refused for its size.
    await served.front.page.goto(`${served.front.url}/runs`);
    expect(new URL(served.front.page.url()).pathname).toBe('/runs');
    const ordinary = await fetch(`${served.front.url}/logout`, {
      method: 'POST',
      headers: { cookie: `proctor_session=${session.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=forged',
      redirect: 'manual',
    });
    expect(ordinary.status).toBe(403);
  });

  it('signs out with the button, and the old cookie no longer opens a page', async () => {
    await served.front.signIn(served.api.tenant.token);
    const before = (await served.front.context.cookies()).find((c) => c.name === 'proctor_session')!;
    await served.front.page.getByRole('button', { name: 'Sign out' }).click();
    await served.front.page.waitForURL(`${served.front.url}/login`);
    const replay = await fetch(`${served.front.url}/runs`, {
      headers: { cookie: `proctor_session=${before.value}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/login/);
    const post = await fetch(`${served.front.url}/test-cases/${crypto.randomUUID()}/enabled`, {
      method: 'POST',
      headers: { cookie: `proctor_session=${before.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'enabled=true',
      redirect: 'manual',
    });
    expect([post.status, post.headers.get('location')]).toEqual([303, '/login']);
    const poll = await fetch(`${served.front.url}/runs/run_x/live`, {
      headers: { cookie: `proctor_session=${before.value}`, 'hx-request': 'true' },
    });
    expect([poll.status, poll.headers.get('hx-redirect')]).toEqual([401, '/login']);
  });

  it('ends the session of a revoked token at once', async () => {
    const extra = await createToken(served.api.db, served.api.tenant.projectId, 'api', 'for the dashboard');
    await served.front.signIn(extra.token);
    await served.front.page.goto(`${served.front.url}/runs`);
    expect(new URL(served.front.page.url()).pathname).toBe('/runs');
    await revokeToken(served.api.db, extra.id);
    await served.front.page.goto(`${served.front.url}/runs`);
    expect(new URL(served.front.page.url()).pathname).toBe('/login');
  });

  it('ends the sessions of a suspended organization at once, and signs none in until it is lifted', async () => {
    await served.front.signIn(served.api.tenant.token);
    await setOrganizationSuspended(served.api.db, served.api.tenant.organizationId, true);
    try {
      await served.front.page.goto(`${served.front.url}/runs`);
      expect(new URL(served.front.page.url()).pathname).toBe('/login');
      await served.front.page.getByLabel('API token').fill(served.api.tenant.token);
      await served.front.page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => served.front.page.getByRole('alert').textContent()).toContain('suspended');
    } finally {
      await setOrganizationSuspended(served.api.db, served.api.tenant.organizationId, false);
    }
    await served.front.signIn(served.api.tenant.token);
    expect(new URL(served.front.page.url()).pathname).toBe('/runs');
  });
});

describe('a dashboard under a path of PROCTOR_APP_URL', () => {
  let api: ApiContext;
  beforeAll(async () => {
    api = await createApiContext('pglite', { appUrl: 'https://proctor.example.com/app' });
  });
  afterAll(() => api?.close());

  it('lives at that path, with its links, its cookie and the API beside it', async () => {
    const login = await api.app.request('/app/login');
    expect(login.status).toBe(200);
    const html = await login.text();
    expect(html).toContain('action="/app/login"');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
    const loginCookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const signedIn = await api.app.request('/app/login', {
      method: 'POST',
      headers: {
        cookie: loginCookie,
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-proto': 'https',
      },
      body: new URLSearchParams({ _csrf: csrf, token: api.tenant.token, next: '/app/runs' }),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/app/runs');
    const session = signedIn.headers.getSetCookie().find((c) => c.startsWith('proctor_session='))!;
    expect(session).toMatch(/; Path=\/app; HttpOnly; Secure; SameSite=Lax/);
    const runs = await api.app.request('/app/runs', { headers: { cookie: session.split(';')[0]! } });
    expect(runs.status).toBe(200);
    expect(await runs.text()).toContain('href="/app/test-cases"');
    expect(runs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Outside the path: the API's own answers.
    expect((await api.app.request('/runs')).status).toBe(404);
    expect((await api.call('GET', '/v1/test-cases')).status).toBe(200);
  });

  it('never sends a sign-in elsewhere than the dashboard', async () => {
    const login = await api.app.request('/app/login?next=https://evil.example/x');
    expect(await login.text()).toContain('name="next" value="/app/runs"');
    const slashes = await api.app.request('/app/login?next=//evil.example/x');
    expect(await slashes.text()).toContain('name="next" value="/app/runs"');
  });
});
