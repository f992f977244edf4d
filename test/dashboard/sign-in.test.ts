import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { expectAccessible, openDashboard, reserveAppUrl, type DashboardBrowser } from '../support/dashboard.js';
import { createToken, revokeToken, setOrganizationSuspended } from '../../src/db/queries/admin.js';

describe('dashboard sign-in', () => {
  let api: ApiContext;
  let dash: DashboardBrowser;

  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    api = await createApiContext('postgres', { appUrl });
    dash = await openDashboard(api.app, appUrl);
  });
  afterAll(async () => {
    await dash?.close();
    await api?.close();
  });

  it('sends a visitor to the sign-in form and back to the page asked for, with a session cookie the page cannot read', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/runs?status=RUNNING`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expectAccessible(page);
    await page.getByLabel('API token').fill('prt_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not a valid project API token');

    await page.getByLabel('API token').fill(api.tenant.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${dash.url}/runs?status=RUNNING`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Runs');
    expect(await page.getByText('Project Shop').count()).toBe(1);

    const [cookie] = (await dash.context.cookies()).filter((c) => c.name === 'proctor_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(cookie!.value).not.toContain(api.tenant.token);
    expect(await page.evaluate(() => document.cookie)).not.toContain('proctor_session');
    expect(await page.content()).not.toContain(api.tenant.token);
    expect(dash.blocked).toEqual([]);
  });

  it('refuses a form post without the CSRF token and changes nothing', async () => {
    await dash.signIn(api.tenant.token);
    const res = await dash.context.request.post(`${dash.url}/logout`, { form: { _csrf: 'forged' }, maxRedirects: 0 });
    expect(res.status()).toBe(403);
    const without = await dash.context.request.post(`${dash.url}/logout`, { form: {}, maxRedirects: 0 });
    expect(without.status()).toBe(403);
    await dash.page.goto(`${dash.url}/runs`);
    expect(new URL(dash.page.url()).pathname).toBe('/runs');
  });

  it('signs out with the button, and the old cookie no longer opens a page', async () => {
    await dash.signIn(api.tenant.token);
    const before = (await dash.context.cookies()).find((c) => c.name === 'proctor_session')!;
    await dash.page.getByRole('button', { name: 'Sign out' }).click();
    await dash.page.waitForURL(`${dash.url}/login`);
    const replay = await fetch(`${dash.url}/runs`, { headers: { cookie: `proctor_session=${before.value}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/login/);
    const post = await fetch(`${dash.url}/test-cases/${crypto.randomUUID()}/enabled`, {
      method: 'POST',
      headers: { cookie: `proctor_session=${before.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'enabled=true',
      redirect: 'manual',
    });
    expect([post.status, post.headers.get('location')]).toEqual([303, '/login']);
    const poll = await fetch(`${dash.url}/runs/run_x/live`, { headers: { cookie: `proctor_session=${before.value}`, 'hx-request': 'true' } });
    expect([poll.status, poll.headers.get('hx-redirect')]).toEqual([401, '/login']);
  });

  it('ends the session of a revoked token at once', async () => {
    const extra = await createToken(api.db, api.tenant.projectId, 'api', 'for the dashboard');
    await dash.signIn(extra.token);
    await dash.page.goto(`${dash.url}/runs`);
    expect(new URL(dash.page.url()).pathname).toBe('/runs');
    await revokeToken(api.db, extra.id);
    await dash.page.goto(`${dash.url}/runs`);
    expect(new URL(dash.page.url()).pathname).toBe('/login');
  });

  it('ends the sessions of a suspended organization at once, and signs none in until it is lifted', async () => {
    await dash.signIn(api.tenant.token);
    await setOrganizationSuspended(api.db, api.tenant.organizationId, true);
    try {
      await dash.page.goto(`${dash.url}/runs`);
      expect(new URL(dash.page.url()).pathname).toBe('/login');
      await dash.page.getByLabel('API token').fill(api.tenant.token);
      await dash.page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => dash.page.getByRole('alert').textContent()).toContain('suspended');
    } finally {
      await setOrganizationSuspended(api.db, api.tenant.organizationId, false);
    }
    await dash.signIn(api.tenant.token);
    expect(new URL(dash.page.url()).pathname).toBe('/runs');
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
      headers: { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-proto': 'https' },
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
