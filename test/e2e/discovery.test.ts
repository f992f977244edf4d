// Discovery (issue 34) on the real stack: Temporal, Postgres, Chromium. On the fixture shop, signed out and then
// resuming from a recorded login test: the map has the shop's pages and forms, the diff of the two says what signing
// in opened, and nothing was submitted. On a generated site: the pages budget binds. Then a `proctor worker` killed
// with SIGKILL in the middle of a discovery: another worker finishes it, its map is the same as an uninterrupted
// discovery's, every URL has one row, and the site served each page once (a page whose visit was in flight at the
// kill, and so had no row yet, is the only one fetched again).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCrashStack } from '../support/crash-stack.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startGeneratedSite, type GeneratedSite } from '../support/generated-site.js';
import { waitFor } from '../support/net.js';
import { applicationIdOf, insertRecordedTestCase, loginSteps } from '../support/recorded.js';
import { startStack, type Stack } from '../support/worker-context.js';
import { isRunning, killWorker } from '../support/worker-process.js';

type Call = Stack['call'];

/** `RECORD_HISTORIES=1` refreshes the histories that test/workflows/replay.test.ts replays. */
async function recordHistory(stack: Stack, id: string, file: string): Promise<void> {
  if (!process.env.RECORD_HISTORIES) return;
  const history = await (await stack.temporal.get()).workflow.getHandle(`discovery:${id}`).fetchHistory();
  writeFileSync(join('test/workflows/histories', file), historyToJSON(history));
}

async function application(call: Call, name: string, url: string): Promise<string> {
  const app = (await call('POST', '/v1/applications', { name })).body.shortId as string;
  expect((await call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url })).status).toBe(201);
  return app;
}

async function discover(call: Call, app: string, body: Record<string, unknown>): Promise<string> {
  const asked = await call('POST', `/v1/applications/${app}/discoveries`, body);
  expect(asked.status, JSON.stringify(asked.body)).toBe(202);
  return asked.body.shortId as string;
}

async function ended(call: Call, id: string, timeoutMs = 120_000, alive?: () => void): Promise<any> {
  let discovery: any;
  await waitFor(
    async () => {
      alive?.();
      discovery = (await call('GET', `/v1/discoveries/${id}`)).body;
      return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(discovery.status);
    },
    timeoutMs,
    `discovery ${id} to end`,
  );
  return discovery;
}

/** The map as a user compares two: each pattern with its pages' paths, titles and form names. */
const mapOf = async (call: Call, id: string) =>
  ((await call('GET', `/v1/discoveries/${id}/pages`)).body.patterns as any[]).map((p) => ({
    pattern: p.pattern,
    pages: p.pages.map((page: any) => new URL(page.url).pathname).sort(),
    titles: p.pages.map((page: any) => page.title).sort(),
    forms: p.forms.map((f: any) => f.name).sort(),
    linksTo: p.linksTo,
  }));

describe('discovery on the fixture shop', () => {
  let fixture: FixtureApps;
  let stack: Stack;
  let shop: string;
  let loginTest: string;

  beforeAll(async () => {
    fixture = await startFixtureApps();
    stack = await startStack();
    shop = await application(stack.call, 'Shop', `${fixture.url}/shop/`);
    loginTest = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: await applicationIdOf(stack.db, shop),
      name: 'Log in',
      steps: loginSteps,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await fixture?.stop();
  });

  it('signed out it maps the sign-in page and its form; resuming from the login test, the shop behind it', async () => {
    const out = await discover(stack.call, shop, { budget: { pages: 20, minutes: 5 } });
    const signedOut = await ended(stack.call, out);
    expect(signedOut).toMatchObject({ status: 'COMPLETED', stopReason: 'explored', pages: 1, actions: 0 });
    const outMap = (await stack.call('GET', `/v1/discoveries/${out}/pages`)).body;
    expect(outMap.patterns.map((p: any) => p.pattern)).toEqual(['/shop/login']);
    const [login] = outMap.patterns;
    expect(login.pages).toEqual([
      {
        url: `${fixture.url}/shop/`,
        finalUrl: `${fixture.url}/shop/login`,
        status: 200,
        title: 'Sign in · Shop',
        error: null,
      },
    ]);
    expect(login.headings).toEqual(['Sign in']);
    expect(login.forms).toHaveLength(1);
    expect(login.forms[0].fields.map((f: any) => [f.label, f.name, f.type])).toEqual([
      ['Email', 'email', 'email'],
      ['Password', 'password', 'password'],
    ]);
    expect(login.forms[0].submit).toBe('Sign in');

    const requestsBefore = fixture.requests().length;
    const inside = await discover(stack.call, shop, {
      budget: { pages: 20, minutes: 5 },
      resumeFromTestCaseId: loginTest,
    });
    const signedIn = await ended(stack.call, inside);
    expect(signedIn).toMatchObject({ status: 'COMPLETED', stopReason: 'explored', resumeFromTestCaseId: loginTest });
    expect(signedIn.pages).toBeLessThanOrEqual(20);
    const map = await mapOf(stack.call, inside);
    expect(map).toEqual([
      { pattern: '/shop/cart', pages: ['/shop/cart'], titles: ['Cart · Shop'], forms: [], linksTo: ['/shop/products'] },
      {
        pattern: '/shop/products',
        pages: ['/shop/', '/shop/products'],
        titles: ['Products · Shop', 'Products · Shop'],
        forms: [],
        linksTo: ['/shop/cart'],
      },
    ]);
    // The login test's replay signed in once (its POST); the discovery itself submitted nothing.
    const during = fixture.requests().slice(requestsBefore);
    expect(during.filter((r) => !r.startsWith('GET '))).toEqual(['POST /shop/api/login']);

    const diff = (await stack.call('GET', `/v1/discoveries/${inside}/diff?against=${out}`)).body;
    expect(diff.patterns).toEqual({ added: ['/shop/cart', '/shop/products'], removed: ['/shop/login'], changed: [] });
    expect(diff.forms.removed.map((f: any) => [f.pattern, f.form.name])).toEqual([['/shop/login', 'Sign in']]);
    expect(diff.forms.added).toEqual([]);
    await recordHistory(stack, inside, 'discovery-resume-from-login.json');
  }, 240_000);

  it('stops at its pages budget', async () => {
    const site = await startGeneratedSite({ sections: 6, items: 3 });
    try {
      const app = await application(stack.call, 'Generated', `${site.url}/`);
      const id = await discover(stack.call, app, { budget: { pages: 4 } });
      expect(await ended(stack.call, id)).toMatchObject({ status: 'COMPLETED', stopReason: 'pages', pages: 4 });
      // Breadth first: the home page, then the first sections it links to.
      expect((await mapOf(stack.call, id)).map((p) => p.pattern)).toEqual([
        '/',
        '/section-a',
        '/section-b',
        '/section-c',
      ]);
    } finally {
      await site.stop();
    }
  }, 120_000);
});

describe('a worker killed in the middle of a discovery', () => {
  const crash = useCrashStack({ name: 'discovery-crash', env: { PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const rows = async (id: string) =>
    crash.stack.db
      .selectFrom('discovery_pages as p')
      .innerJoin('discoveries as d', 'd.id', 'p.discovery_id')
      .select('p.url')
      .where('d.short_id', '=', id)
      .execute();
  const sites: GeneratedSite[] = [];
  // 8 sections of 3 items: 25 visits (two items per section), each page served after 300 ms. No search forms: a
  // search is submitted and undone by going back, a second fetch of its page that is not a second visit.
  const newSite = async () => {
    const site = await startGeneratedSite({ sections: 8, items: 3, delayMs: 300, search: false });
    sites.push(site);
    return site;
  };
  afterAll(async () => Promise.all(sites.map((s) => s.stop())));

  it('another worker finishes it: the same map, one row per URL, each page fetched once', async () => {
    const { stack } = crash;
    const first = crash.startWorker();
    const alive = () => {
      if (!isRunning(first)) throw new Error(`the worker exited early:\n${first.output()}`);
    };
    // The map of an uninterrupted discovery of the same site, to compare with.
    const calm = await newSite();
    const calmId = await discover(stack.call, await application(stack.call, 'Calm', `${calm.url}/`), {});
    expect(await ended(stack.call, calmId, 120_000, alive)).toMatchObject({ status: 'COMPLETED', pages: 25 });
    const calmMap = await mapOf(stack.call, calmId);
    expect(calmMap.map((p) => p.pattern).sort()).toEqual(calm.patterns);

    const site = await newSite();
    const id = await discover(stack.call, await application(stack.call, 'Crash', `${site.url}/`), {});
    await waitFor(
      async () => {
        alive();
        return (await rows(id)).length >= 8;
      },
      120_000,
      'the first worker to visit 8 pages',
    );
    await killWorker(first);
    const storedAtKill = new Set((await rows(id)).map((r) => new URL(r.url).pathname));
    expect(storedAtKill.size).toBeLessThan(25);
    expect((await stack.call('GET', `/v1/discoveries/${id}`)).body.status).toBe('RUNNING');

    const second = crash.startWorker();
    const done = await ended(stack.call, id, 180_000, () => {
      if (!isRunning(second)) throw new Error(`the second worker exited:\n${second.output()}`);
    });
    expect(done).toMatchObject({ status: 'COMPLETED', stopReason: 'explored', pages: 25 });
    // The same patterns, pages, titles, forms and links as the uninterrupted discovery's.
    expect(await mapOf(stack.call, id)).toEqual(calmMap);
    const stored = (await rows(id)).map((r) => new URL(r.url).pathname);
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored).toHaveLength(25);

    // Each page fetched once; only a visit in flight at the kill (no row yet) was fetched again, at most 3 (the
    // discovery's concurrency). Nothing but GETs: no form was submitted.
    const requests = site.requests();
    const again = [...requests].filter(([, n]) => n > 1);
    for (const [path, n] of again) {
      expect(storedAtKill.has(path), `${path} was stored before the kill and fetched again`).toBe(false);
      expect(n, path).toBe(2);
    }
    expect(again.length).toBeLessThanOrEqual(3);
    expect(stored.every((path) => requests.get(path)! >= 1)).toBe(true);
    expect(site.otherRequests()).toEqual([]);
    expect(calm.otherRequests()).toEqual([]);
    expect([...calm.requests().values()].every((n) => n === 1)).toBe(true);
    await recordHistory(stack, id, 'discovery-worker-killed.json');
  }, 420_000);
});
