// Discovery (issue 34) on the real stack: Temporal, Postgres, Chromium. On the fixture shop, signed out and then
// resuming from a recorded login test: the map has the shop's pages and forms, the diff of the two says what signing
// in opened, and nothing was submitted. On a generated site: the pages budget binds. Then, on a generated site and on
// the back office under /d/, a `proctor worker` killed with SIGKILL in the middle of a discovery: another worker
// finishes it, its map is the same as an uninterrupted discovery's, every URL has one row, and the site served each
// page once (a page whose visit was in flight at the kill, and so had no row yet, is the only one fetched again).
// The uninterrupted discovery of the back office is also checked against its ground truth
// (test/support/back-office-truth.ts): every page pattern and form found within its budget, nothing submitted but a
// search, no sign-out, no deletion.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backOfficeForms, backOfficePatterns, forbiddenRequest, missingForms } from '../support/back-office-truth.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startGeneratedSite } from '../support/generated-site.js';
import { waitFor } from '../support/net.js';
import { applicationIdOf, insertRecordedTestCase, loginSteps } from '../support/recorded.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, type Stack } from '../support/worker-context.js';
import {
  isRunning,
  killWorker,
  startWorkerProcess,
  workerProcessEnv,
  type WorkerProcess,
} from '../support/worker-process.js';

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

/** A URL's path and query, as the site's request log has it. */
const pathOf = (url: string) => {
  const { pathname, search } = new URL(url);
  return pathname + search;
};

/** The map as a user compares two: each pattern with its pages' paths, titles and form names. */
const mapOf = async (call: Call, id: string) =>
  ((await call('GET', `/v1/discoveries/${id}/pages`)).body.patterns as any[]).map((p) => ({
    pattern: p.pattern,
    pages: p.pages.map((page: any) => pathOf(page.url)).sort(),
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

/** A site to discover, served afresh for each discovery so that its request log is that discovery's alone. */
interface CrashSite {
  /** The environment's URL: where the discovery starts. */
  startUrl: string;
  /** The page patterns a whole discovery finds. */
  patterns: readonly string[];
  /** `METHOD /path?query` of every request the site received. */
  log(): string[];
  stop(): Promise<void>;
}

/** The uninterrupted discovery of a site, as its own checks read it. */
interface CalmRun {
  discovery: any;
  /** GET /v1/discoveries/{id}/pages: its patterns with their forms, fields and pages. */
  patterns: any[];
  log: string[];
}

interface CrashCase {
  name: string;
  open(): Promise<CrashSite>;
  budget: Record<string, number>;
  /** Pages a whole discovery visits, when counted by hand. */
  pages?: number;
  /**
   * Paths fetched again by design, not by a second visit: the page a search was submitted from (the visit goes back
   * to it), and the results page (visited later as a link). Everything else is fetched at most once.
   */
  fetchedAgain?: (path: string) => boolean;
  /** What the site's uninterrupted discovery must have found and not done, beyond its patterns. */
  groundTruth?(run: CalmRun): void;
  /** The file under test/workflows/histories that `RECORD_HISTORIES=1` writes the interrupted discovery's history to. */
  history?: string;
}

const getsOf = (log: string[]) => log.filter((l) => l.startsWith('GET ')).map((l) => l.slice('GET '.length));

const crashCases: CrashCase[] = [
  {
    // 8 sections of 3 items: 25 visits (two items per section), each page served after 300 ms. No search forms.
    name: 'a generated site',
    async open() {
      const site = await startGeneratedSite({ sections: 8, items: 3, delayMs: 300, search: false });
      return {
        startUrl: `${site.url}/`,
        patterns: site.patterns,
        log: () => [
          ...[...site.requests()].flatMap(([path, n]) => Array.from({ length: n }, () => `GET ${path}`)),
          ...site.otherRequests(),
        ],
        stop: () => site.stop(),
      };
    },
    budget: {},
    pages: 25,
    history: 'discovery-worker-killed.json',
  },
  {
    // 31 page patterns, 13 forms, menus that open on click, tabs, dialogs, a search in the header, sign-out and
    // delete controls (test/support/fixtures/discovery-app.ts); its ground truth is test/support/back-office-truth.ts.
    name: 'the back office',
    async open() {
      const apps = await startFixtureApps();
      return { startUrl: `${apps.url}/d/`, patterns: backOfficePatterns, log: apps.requests, stop: () => apps.stop() };
    },
    budget: { pages: 60, actions: 200, minutes: 10 },
    fetchedAgain: (path) => path === '/d/' || path.startsWith('/d/search?'),
    groundTruth({ discovery, patterns, log }) {
      const formsOf = (pattern: string) => patterns.find((p) => p.pattern === pattern)?.forms ?? [];
      expect(missingForms(formsOf)).toEqual([]);
      // No form but those listed, and the header's search form on every page.
      const listed = new Set(backOfficeForms.map((f) => `${f.page} ${f.form}`));
      const found = patterns.flatMap((p) => p.forms.map((f: any) => `${p.pattern} ${f.method} ${f.action}`));
      expect(found.filter((f) => !listed.has(f) && !f.endsWith(' get /d/search'))).toEqual([]);
      expect(patterns.filter((p) => !p.forms.some((f: any) => f.action === '/d/search' && f.search))).toEqual([]);
      expect(patterns.flatMap((p) => p.pages).filter((page: any) => page.status !== 200 || page.error)).toEqual([]);
      // Nothing submitted but a search, no sign-out, no deletion, no download.
      expect(log.filter((line) => !line.startsWith('GET '))).toEqual([]);
      expect(log.filter((line) => forbiddenRequest.test(line))).toEqual([]);
      expect(log.filter((line) => line.startsWith('GET /d/search?'))).not.toEqual([]);
      expect(discovery.actions).toBeGreaterThanOrEqual(8); // menus, tabs, dialogs and disclosures were opened
    },
  },
];

describe.each(crashCases)('a worker killed in the middle of a discovery of $name', (crashCase) => {
  let llm: ScriptedLlm;
  let stack: Stack;
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-discovery-crash-'));
  const workers: WorkerProcess[] = [];
  const sites: CrashSite[] = [];
  let first: WorkerProcess;
  let calm: CalmRun;
  let calmMap: Awaited<ReturnType<typeof mapOf>>;

  const startWorker = () => {
    const worker = startWorkerProcess(
      workerProcessEnv({ stack, llm, blobDir, extra: { PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true' } }),
    );
    workers.push(worker);
    return worker;
  };
  const alive = (worker: WorkerProcess) => () => {
    if (!isRunning(worker)) throw new Error(`the worker exited early:\n${worker.output()}`);
  };
  const rows = async (id: string) =>
    stack.db
      .selectFrom('discovery_pages as p')
      .innerJoin('discoveries as d', 'd.id', 'p.discovery_id')
      .select('p.url')
      .where('d.short_id', '=', id)
      .execute();
  const newSite = async () => {
    const site = await crashCase.open();
    sites.push(site);
    return site;
  };

  beforeAll(async () => {
    llm = await startScriptedLlm();
    stack = await startStack({ worker: false });
    // The uninterrupted discovery of the site, by the worker killed later: what the interrupted one must equal.
    first = startWorker();
    const site = await newSite();
    const id = await discover(stack.call, await application(stack.call, 'Calm', site.startUrl), {
      budget: crashCase.budget,
    });
    const discovery = await ended(stack.call, id, 180_000, alive(first));
    calm = {
      discovery,
      patterns: (await stack.call('GET', `/v1/discoveries/${id}/pages`)).body.patterns,
      log: site.log(),
    };
    calmMap = await mapOf(stack.call, id);
  }, 300_000);
  afterAll(async () => {
    for (const w of workers) if (isRunning(w)) await killWorker(w);
    await stack?.close();
    await llm?.stop();
    await Promise.all(sites.map((s) => s.stop()));
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('uninterrupted, it finds every page pattern within its budget, and fetches each page once', () => {
    const { discovery, patterns, log } = calm;
    expect(discovery).toMatchObject({ status: 'COMPLETED', stopReason: 'explored' });
    if (crashCase.pages !== undefined) expect(discovery.pages).toBe(crashCase.pages);
    expect(discovery.pages).toBeLessThanOrEqual(crashCase.budget.pages ?? Infinity);
    expect(discovery.actions).toBeLessThanOrEqual(crashCase.budget.actions ?? Infinity);
    expect(patterns.map((p: any) => p.pattern).sort()).toEqual([...sites[0]!.patterns].sort());
    const pages = new Set(patterns.flatMap((p: any) => p.pages.map((page: any) => pathOf(page.url))));
    const gets = getsOf(log);
    const twice = [...pages].filter((p) => gets.filter((g) => g === p).length > 1);
    expect(twice.filter((p) => !crashCase.fetchedAgain?.(p))).toEqual([]);
    expect(log.filter((line) => !line.startsWith('GET '))).toEqual([]); // no form was submitted
    crashCase.groundTruth?.(calm);
  });

  it('another worker finishes it: the same map, one row per URL, each page fetched once', async () => {
    const site = await newSite();
    const id = await discover(stack.call, await application(stack.call, 'Crash', site.startUrl), {
      budget: crashCase.budget,
    });
    await waitFor(
      async () => {
        alive(first)();
        return (await rows(id)).length >= 8;
      },
      120_000,
      'the first worker to visit 8 pages',
    );
    await killWorker(first);
    const storedAtKill = new Set((await rows(id)).map((r) => pathOf(r.url)));
    expect(storedAtKill.size).toBeLessThan(calm.discovery.pages);
    expect((await stack.call('GET', `/v1/discoveries/${id}`)).body.status).toBe('RUNNING');

    const second = startWorker();
    const done = await ended(stack.call, id, 180_000, alive(second));
    expect(done).toMatchObject({ status: 'COMPLETED', stopReason: 'explored', pages: calm.discovery.pages });
    // The same patterns, pages, titles, forms and links as the uninterrupted discovery's.
    expect(await mapOf(stack.call, id)).toEqual(calmMap);
    const stored = (await rows(id)).map((r) => pathOf(r.url));
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored).toHaveLength(calm.discovery.pages);

    // Each page fetched once; only a visit in flight at the kill (no row yet) was fetched again, at most 3 (the
    // discovery's concurrency). Nothing but GETs: no form was submitted.
    const log = site.log();
    const gets = getsOf(log);
    const fetches = (path: string) => gets.filter((g) => g === path).length;
    const again = stored.filter((path) => !crashCase.fetchedAgain?.(path) && fetches(path) > 1);
    for (const path of again) {
      expect(storedAtKill.has(path), `${path} was stored before the kill and fetched again`).toBe(false);
      expect(fetches(path), path).toBe(2);
    }
    expect(again.length).toBeLessThanOrEqual(3);
    expect(stored.filter((path) => fetches(path) === 0)).toEqual([]);
    expect(log.filter((line) => !line.startsWith('GET '))).toEqual([]);
    if (crashCase.history) await recordHistory(stack, id, crashCase.history);
  }, 420_000);
});
