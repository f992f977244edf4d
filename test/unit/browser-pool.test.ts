import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, QueueFullError, QueueTimeoutError } from '../../src/browser/context/limiter.js';
import { createNetworkGuard } from '../../src/browser/context/network-guard.js';
import {
  BrowserCrashedError,
  BrowserJobTimeoutError,
  BrowserPoolClosedError,
  createBrowserPool,
  type BrowserPool,
} from '../../src/browser/context/pool.js';
import { captureBrowserState } from '../../src/browser/context/state.js';
import { waitFor } from '../support/net.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('limiter', () => {
  it('runs at most `concurrency` jobs and queues the rest in order', async () => {
    const limiter = createLimiter({ concurrency: 2 });
    const order: number[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        limiter.run(async () => {
          order.push(i);
          await sleep(20);
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.stats()).toEqual({ active: 0, queued: 0, peakActive: 2 });
  });

  it('releases the slot when the job throws', async () => {
    const limiter = createLimiter({ concurrency: 1 });
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
    expect(limiter.stats().active).toBe(0);
  });

  it('refuses a job when the queue is full', async () => {
    const limiter = createLimiter({ concurrency: 1, maxQueue: 1 });
    let release!: () => void;
    const running = limiter.run(() => new Promise<void>((r) => (release = r)));
    const waiting = limiter.run(async () => 'waited');
    await expect(limiter.run(async () => 'third')).rejects.toBeInstanceOf(QueueFullError);
    release();
    await running;
    await expect(waiting).resolves.toBe('waited');
  });

  it('refuses a job that waited too long', async () => {
    const limiter = createLimiter({ concurrency: 1, queueTimeoutMs: 50 });
    let release!: () => void;
    const running = limiter.run(() => new Promise<void>((r) => (release = r)));
    await expect(limiter.run(async () => 'late')).rejects.toBeInstanceOf(QueueTimeoutError);
    expect(limiter.stats()).toMatchObject({ active: 1, queued: 0 });
    release();
    await running;
  });

  it('takes an aborted job out of the queue', async () => {
    const limiter = createLimiter({ concurrency: 1 });
    let release!: () => void;
    const running = limiter.run(() => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => {
      ran = true;
    }, controller.signal);
    expect(limiter.stats().queued).toBe(1);
    controller.abort(new Error('no longer needed'));
    await expect(waiting).rejects.toThrow('no longer needed');
    expect(limiter.stats().queued).toBe(0);
    release();
    await running;
    expect(ran).toBe(false);
    await expect(limiter.run(async () => 1, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });
});

interface ProcessInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

function processes(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after "(comm)": state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      found.push({ pid: Number(entry), ppid, cmdline });
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** The pool's browser process (the one carrying this test's marker switch) and all its descendants. */
function browserTree(marker: string): { browsers: ProcessInfo[]; tree: ProcessInfo[] } {
  const all = processes();
  const browsers = all.filter((p) => p.cmdline.includes(marker));
  const pids = new Set(browsers.map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (pids.has(p.ppid) && !pids.has(p.pid)) {
        pids.add(p.pid);
        grew = true;
      }
    }
  }
  return { browsers, tree: all.filter((p) => pids.has(p.pid)) };
}

function stillRunning(process: ProcessInfo): boolean {
  try {
    return readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').split('\0').join(' ') === process.cmdline;
  } catch {
    return false;
  }
}

describe('browser pool', () => {
  let server: Server;
  let base: string;
  const cookieHeaders: string[] = [];
  // Chromium ignores switches it does not know; this one finds our browser among others in /proc.
  const marker = `--proctor-test-pool=${randomUUID()}`;
  const networkGuard = createNetworkGuard({ allowPrivateNetworks: true });
  let pool: BrowserPool;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const html = (body: string, headers: Record<string, string> = {}) =>
        res.writeHead(200, { 'content-type': 'text/html', ...headers }).end(body);
      if (url.pathname === '/login') {
        html(
          '<script>localStorage.setItem("theme", "dark"); sessionStorage.setItem("wizardStep", "3")</script><h1>signed in</h1>',
          {
            'set-cookie': 'sid=s3cr3t; Path=/; HttpOnly; SameSite=Lax',
          },
        );
        return;
      }
      if (url.pathname === '/account') cookieHeaders.push(req.headers.cookie ?? '');
      html(`<h1>${url.pathname}</h1>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pool = createBrowserPool({ concurrency: 2, networkGuard, args: [marker], queueTimeoutMs: 30_000 });
  });

  afterAll(async () => {
    await pool?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  it('runs many contexts in one browser, at most `concurrency` at a time', async () => {
    let running = 0;
    let mostRunning = 0;
    const browserCounts: number[] = [];
    const titles = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        pool.withContext({}, async ({ page }) => {
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          try {
            await page.goto(`${base}/job-${i}`);
            browserCounts.push(browserTree(marker).browsers.length);
            await sleep(100);
            return await page.textContent('h1');
          } finally {
            running -= 1;
          }
        }),
      ),
    );
    expect(titles).toEqual(['/job-1', '/job-2', '/job-3', '/job-4', '/job-5', '/job-6']);
    expect(mostRunning).toBe(2);
    expect(pool.stats()).toMatchObject({
      active: 0,
      queued: 0,
      peakActive: 2,
      contexts: 0,
      launches: 1,
      connected: true,
    });
    expect(browserCounts).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('applies the context options', async () => {
    const seen = await pool.withContext(
      {
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
        isMobile: true,
        hasTouch: true,
        userAgent: 'ProctorPhone/1.0',
        locale: 'de-DE',
        timezoneId: 'Asia/Tokyo',
      },
      async ({ page }) => {
        await page.goto(`${base}/device`);
        return page.evaluate(() => ({
          width: screen.width,
          dpr: devicePixelRatio,
          touch: navigator.maxTouchPoints > 0,
          ua: navigator.userAgent,
          locale: navigator.language,
          zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        }));
      },
    );
    expect(seen).toEqual({
      width: 390,
      dpr: 3,
      touch: true,
      ua: 'ProctorPhone/1.0',
      locale: 'de-DE',
      zone: 'Asia/Tokyo',
    });
  });

  it('guards every context it hands out', async () => {
    const blocked: string[] = [];
    await pool.withContext({ onBlocked: (url) => blocked.push(url) }, async ({ page }) => {
      await expect(page.goto('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/ERR_BLOCKED_BY_CLIENT/);
    });
    expect(blocked).toEqual(['http://169.254.169.254/latest/meta-data/']);
  });

  it('carries cookies, localStorage and sessionStorage from a captured state into a fresh context', async () => {
    const state = await pool.withContext({}, async ({ context, page }) => {
      await page.goto(`${base}/login`);
      return captureBrowserState(context, page);
    });
    expect(state.url).toBe(`${base}/login`);
    expect(state.cookies).toEqual([expect.objectContaining({ name: 'sid', value: 's3cr3t', httpOnly: true })]);
    expect(state.origins).toEqual([
      {
        origin: base,
        localStorage: [{ name: 'theme', value: 'dark' }],
        sessionStorage: [{ name: 'wizardStep', value: '3' }],
      },
    ]);

    cookieHeaders.length = 0;
    const restored = await pool.withContext({ state }, async ({ page }) => {
      await page.goto(`${base}/account`);
      const first = await page.evaluate(() => ({
        theme: localStorage.getItem('theme'),
        step: sessionStorage.getItem('wizardStep'),
      }));
      // What the app writes afterwards survives its next document.
      await page.evaluate(() => {
        localStorage.setItem('theme', 'light');
        sessionStorage.setItem('wizardStep', '4');
      });
      await page.reload();
      const afterReload = await page.evaluate(() => ({
        theme: localStorage.getItem('theme'),
        step: sessionStorage.getItem('wizardStep'),
      }));
      return { first, afterReload };
    });
    expect(cookieHeaders[0]).toBe('sid=s3cr3t');
    expect(restored).toEqual({ first: { theme: 'dark', step: '3' }, afterReload: { theme: 'light', step: '4' } });

    // A state captured after restoring does not carry the seeding marker along.
    const again = await pool.withContext({ state }, async ({ context, page }) => {
      await page.goto(`${base}/account`);
      return captureBrowserState(context, page);
    });
    expect(again.origins).toEqual(state.origins);
  });

  it('reads sessionStorage from every open tab', async () => {
    const state = await pool.withContext({}, async ({ context, page }) => {
      await page.goto(`${base}/main`);
      await page.evaluate(() => sessionStorage.setItem('tab', 'main'));
      const other = await context.newPage();
      await other.goto(`http://localhost:${new URL(base).port}/other`);
      await other.evaluate(() => sessionStorage.setItem('tab', 'other'));
      return captureBrowserState(context, page);
    });
    expect(state.origins).toEqual(
      expect.arrayContaining([
        { origin: base, localStorage: [], sessionStorage: [{ name: 'tab', value: 'main' }] },
        {
          origin: `http://localhost:${new URL(base).port}`,
          localStorage: [],
          sessionStorage: [{ name: 'tab', value: 'other' }],
        },
      ]),
    );
  });

  it('closes the context when the job throws', async () => {
    await expect(
      pool.withContext({}, async ({ context }) => {
        await context.newPage();
        expect(pool.stats().contexts).toBe(1);
        throw new Error('step failed');
      }),
    ).rejects.toThrow('step failed');
    expect(pool.stats()).toMatchObject({ contexts: 0, active: 0 });
  });

  it('times out a hung job, closes its context and frees its slot', async () => {
    const single = createBrowserPool({ concurrency: 1, networkGuard, args: [marker] });
    try {
      // Launch the browser first: on a loaded machine a cold launch alone can outlast the job's timeout, and
      // then the job never gets its page.
      await single.withContext({}, async () => undefined);
      let hungPage: Page | undefined;
      await expect(
        single.withContext({ timeoutMs: 3_000 }, async ({ page }) => {
          hungPage = page;
          await new Promise(() => undefined);
        }),
      ).rejects.toBeInstanceOf(BrowserJobTimeoutError);
      expect(hungPage?.isClosed()).toBe(true);
      expect(single.stats()).toMatchObject({ active: 0, contexts: 0 });
      await expect(single.withContext({}, async () => 'next job ran')).resolves.toBe('next job ran');
    } finally {
      await single.close();
    }
  });

  it('stops a job when its signal aborts, queued or running', async () => {
    const single = createBrowserPool({ concurrency: 1, networkGuard, args: [marker] });
    try {
      const running = new AbortController();
      const queued = new AbortController();
      let queuedRan = false;
      const first = single.withContext({ signal: running.signal }, async ({ page }) => {
        await page.goto(`${base}/busy`);
        await new Promise(() => undefined);
      });
      const second = single.withContext({ signal: queued.signal }, async () => {
        queuedRan = true;
      });
      await waitFor(
        async () => single.stats().queued === 1 && single.stats().contexts === 1,
        10_000,
        'one job running, one queued',
      );
      queued.abort(new Error('cancelled while queued'));
      await expect(second).rejects.toThrow('cancelled while queued');
      running.abort(new Error('cancelled while running'));
      await expect(first).rejects.toThrow('cancelled while running');
      expect(queuedRan).toBe(false);
      expect(single.stats()).toMatchObject({ active: 0, queued: 0, contexts: 0 });
    } finally {
      await single.close();
    }
  });

  it('reports a crashed browser as critical and relaunches for the next job', async () => {
    const crashMarker = `--proctor-test-crash=${randomUUID()}`;
    const crashing = createBrowserPool({ concurrency: 2, networkGuard, args: [crashMarker] });
    try {
      const job = crashing.withContext({}, async ({ page }) => {
        await page.goto(`${base}/before-crash`);
        const [browser] = browserTree(crashMarker).browsers;
        process.kill(browser!.pid, 'SIGKILL');
        await page.waitForTimeout(30_000);
      });
      await expect(job).rejects.toBeInstanceOf(BrowserCrashedError);
      expect(crashing.stats()).toMatchObject({ active: 0, connected: false, launches: 1 });
      const title = await crashing.withContext({}, async ({ page }) => {
        await page.goto(`${base}/after-crash`);
        return page.textContent('h1');
      });
      expect(title).toBe('/after-crash');
      expect(crashing.stats()).toMatchObject({ connected: true, launches: 2, contexts: 0 });
    } finally {
      await crashing.close();
    }
  });

  it('leaves no Chromium process behind when closed, and refuses jobs afterwards', async () => {
    const closeMarker = `--proctor-test-close=${randomUUID()}`;
    const closing = createBrowserPool({ concurrency: 1, networkGuard, args: [closeMarker] });
    const tree = await closing.withContext({}, async ({ page }) => {
      await page.goto(`${base}/alive`);
      return browserTree(closeMarker);
    });
    expect(tree.browsers).toHaveLength(1);
    expect(tree.tree.length).toBeGreaterThan(1);
    await closing.close();
    await waitFor(async () => tree.tree.every((p) => !stillRunning(p)), 10_000, 'the browser processes to exit');
    expect(browserTree(closeMarker).tree).toEqual([]);
    await expect(closing.withContext({}, async () => undefined)).rejects.toBeInstanceOf(BrowserPoolClosedError);
  });

  it('says how to get Chromium when there is none', () => {
    const saved = { cwd: process.cwd(), path: process.env.PATH, chromium: process.env.PROCTOR_CHROMIUM_PATH };
    const empty = mkdtempSync(join(tmpdir(), 'proctor-no-tools-'));
    try {
      process.chdir(empty);
      process.env.PATH = empty;
      delete process.env.PROCTOR_CHROMIUM_PATH;
      expect(() => createBrowserPool({ concurrency: 1, networkGuard })).toThrow(
        'Chromium not found: set PROCTOR_CHROMIUM_PATH or run npm run setup',
      );
    } finally {
      process.chdir(saved.cwd);
      process.env.PATH = saved.path;
      if (saved.chromium !== undefined) process.env.PROCTOR_CHROMIUM_PATH = saved.chromium;
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
