import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaySteps } from '../../src/browser/replay/replay.js';
import { SignalCollector } from '../../src/browser/quality/signals.js';
import { clearScanCache } from '../../src/browser/quality/axe-scan.js';
import { RunValues } from '../../src/domain/run-values.js';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import {
  compareSignals,
  fingerprintKey,
  ignoredUrl,
  normaliseMessage,
  pageTemplate,
  type QualitySignal,
} from '../../src/domain/quality.js';
import { createBenchPool } from '../../bench/support.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { allQualityProblems, profileSteps } from '../support/fixtures/quality.js';

describe('fingerprints: the same problem on another host, record or run is one issue; another problem is not', () => {
  const ids = ['4821', '9f8e7d6c5b4a', '3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b', 'ORD-1001', 'v2'];
  it('page templates take every segment with a digit out, and drop host, query and fragment', () => {
    for (const id of ids) {
      for (const host of ['http://127.0.0.1:4000', 'https://pr-42.shop.example.com']) {
        expect(pageTemplate(`${host}/orders/${id}/items?page=3#top`)).toBe('/orders/:id/items');
      }
    }
    expect(pageTemplate('https://shop.example.com/')).toBe('/');
    expect(pageTemplate('https://shop.example.com/cart')).not.toBe(pageTemplate('https://shop.example.com/checkout'));
  });

  it('messages lose URLs, numbers and ids (each shape of id, whatever its value) but keep their words', () => {
    const hex = () =>
      [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const shapes: (() => string)[] = [
      () => String(Math.floor(Math.random() * 1e6)),
      hex,
      () => crypto.randomUUID(),
      () => `ORD-${Math.floor(Math.random() * 1e4)}`,
    ];
    for (const shape of shapes) {
      const seen = new Set(
        Array.from({ length: 20 }, () => {
          const id = shape();
          const n = Math.random() * 1000;
          return normaliseMessage(
            `Failed to load order ${id} after ${n} ms from https://api.example.com/orders/${id}?t=${n}`,
          );
        }),
      );
      expect(seen.size, shape()).toBe(1);
    }
    expect(normaliseMessage('TypeError: x is undefined')).not.toBe(normaliseMessage('TypeError: y is undefined'));
  });

  it('kind, rule and element separate fingerprints; the step and host do not', () => {
    const base: QualitySignal = {
      kind: 'a11y',
      severity: 'critical',
      rule: 'label',
      message: 'Form elements must have labels',
      target: '#email <input id="email">',
      url: 'http://a.test/profile/12',
      stepIndex: 0,
    };
    expect(fingerprintKey({ ...base, url: 'https://b.test/profile/99', stepIndex: 4 })).toBe(fingerprintKey(base));
    for (const other of [
      { rule: 'color-contrast' },
      { target: '#name <input id="name">' },
      { kind: 'console' as const },
      { url: 'http://a.test/settings' },
    ]) {
      expect(fingerprintKey({ ...base, ...other })).not.toBe(fingerprintKey(base));
    }
  });

  it('ignore patterns: `*` any characters, else a substring', () => {
    expect(ignoredUrl('https://x.test/analytics/collect', ['*/analytics/*'])).toBe(true);
    expect(ignoredUrl('https://status.example.com/ping', ['status.example.com'])).toBe(true);
    expect(ignoredUrl('https://x.test/api/orders', ['*/analytics/*', 'status.example.com'])).toBe(false);
  });

  it('a comparison counts new, fixed and unchanged once per fingerprint, most severe new first', () => {
    const f = (fingerprint: string, severity: 'critical' | 'minor' = 'minor') => ({
      fingerprint,
      kind: 'console' as const,
      severity,
      title: fingerprint,
      page: '/',
    });
    const delta = compareSignals([f('a'), f('a'), f('b'), f('c', 'critical')], [f('a'), f('d')]);
    expect(delta).toMatchObject({ newCount: 2, fixedCount: 1, unchanged: 1 });
    expect(delta.new.map((x) => x.title)).toEqual(['c', 'b']);
    expect(delta.fixed.map((x) => x.title)).toEqual(['d']);
  });
});

describe('the collector in Chromium', () => {
  let fixture: FixtureApps;
  let pool: BrowserPool;
  beforeAll(async () => {
    fixture = await startFixtureApps();
    pool = createBenchPool(1);
  }, 60_000);
  afterAll(async () => {
    await pool?.close();
    await fixture?.stop();
  });

  const replay = (collector: (page: import('playwright-core').Page) => SignalCollector) =>
    pool.withContext({}, async ({ page }) => {
      const c = collector(page);
      const result = await replaySteps(page, profileSteps, {
        startUrl: `${fixture.url}/quality/`,
        baseUrl: fixture.url,
        values: new RunValues(),
        timeoutMs: 5_000,
        onStep: (i) => c.beforeStep(i),
      });
      return { result, signals: await c.finish(), failedScans: c.failedScans };
    });

  it('ignore patterns drop a failing request; a scan that cannot finish in time is left out and the test still passes', async () => {
    fixture.quality.setQualityProblems(allQualityProblems);
    clearScanCache();
    const ignored = await replay((page) => new SignalCollector(page, { ignoreUrls: ['*/api/users/*'] }));
    expect(ignored.result.status).toBe('PASSED');
    expect(ignored.signals.map((s) => s.kind).sort()).toEqual(['a11y', 'a11y', 'exception']);

    clearScanCache();
    const hurried = await replay((page) => new SignalCollector(page, { scanTimeoutMs: 1 }));
    expect(hurried.result.status).toBe('PASSED');
    expect(hurried.failedScans).toBeGreaterThan(0);
    expect(hurried.signals.filter((s) => s.kind === 'a11y')).toEqual([]);
    expect(hurried.signals.map((s) => s.kind).sort()).toEqual(['exception', 'network']);
  }, 60_000);

  it('a clean page gives no signal at all', async () => {
    fixture.quality.setQualityProblems([]);
    clearScanCache();
    const clean = await replay((page) => new SignalCollector(page));
    expect(clean).toMatchObject({ result: { status: 'PASSED' }, signals: [], failedScans: 0 });
  }, 60_000);
});
