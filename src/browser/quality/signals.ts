// Quality signals of one test in the browser (a burn-in or a replay): console errors and warnings, uncaught
// exceptions, failed requests, and axe-core scans after each navigation and at the end. Bounded in count and time;
// a scan that fails or times out is left out, it never fails the test.
import type { ConsoleMessage, Page, Request, Response } from 'playwright-core';
import { fingerprintKey, ignoredUrl, type QualitySignal, type Severity } from '../../domain/quality.js';
import { pageDigest, scanPage, type ScanCache } from './axe-scan.js';

export interface SignalOptions {
  /** Request URLs whose failures are not signals (project setting: `*` wildcards, else a substring). */
  ignoreUrls?: string[];
  /** Scans per test, the one at the end included (default 6). */
  maxScans?: number;
  scanTimeoutMs?: number;
  /** Distinct signals kept per test (default 100); the rest are counted as dropped. */
  maxSignals?: number;
  /** false: no axe scans (the bench's baseline, and a project that opts out). */
  a11y?: boolean;
  /** The project's scans of documents met before (a document met again is not scanned again). */
  scanCache?: ScanCache;
}

const checkedTypes = new Set(['document', 'xhr', 'fetch']);
// A request the page itself gave up (a navigation away) or Proctor's network guard refused is not the application's failure.
const notFailures = /net::ERR_ABORTED|net::ERR_BLOCKED_BY_CLIENT|NS_BINDING_ABORTED/;

export class SignalCollector {
  private readonly found = new Map<string, QualitySignal>();
  private readonly attached = new WeakSet<Page>();
  private stepIndex = -1;
  private scans = 0;
  private navigated = true;
  private current: Page;
  private lastKey: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly opts: Required<Omit<SignalOptions, 'scanCache'>> & Pick<SignalOptions, 'scanCache'>;
  dropped = 0;
  failedScans = 0;

  constructor(page: Page, opts: SignalOptions = {}) {
    this.opts = { ignoreUrls: [], maxScans: 6, scanTimeoutMs: 5_000, maxSignals: 100, a11y: true, ...opts };
    this.current = page;
    this.attach(page);
    page.context().on('page', this.attach);
  }

  /** Before step `index` runs: the page the previous step left is scanned if it navigated since the last scan. */
  async beforeStep(index: number): Promise<void> {
    if (this.navigated && this.scans < this.opts.maxScans - 1) await this.scan();
    this.stepIndex = index;
  }

  /** After step `index` (the burn-in, which thinks in between): scans in the background, in order; `finish` waits. */
  afterStep(index: number): void {
    this.stepIndex = index;
    if (!this.navigated || this.scans >= this.opts.maxScans - 1) return;
    this.queue = this.queue.then(() => this.scan());
  }

  /** Scans the end state and stops listening: the test's distinct signals, in the order they happened. */
  async finish(): Promise<QualitySignal[]> {
    await this.queue;
    await this.scan();
    this.current.context().off('page', this.attach);
    return [...this.found.values()];
  }

  private readonly attach = (page: Page): void => {
    if (this.attached.has(page)) return;
    this.attached.add(page);
    page.on('console', (msg: ConsoleMessage) => this.onConsole(page, msg));
    page.on('pageerror', (err: Error) =>
      this.add({
        kind: 'exception',
        severity: 'serious',
        message: `${err.name}: ${err.message}`.split('\n')[0]!,
        url: page.url(),
      }),
    );
    page.on('response', (res: Response) => this.onResponse(page, res));
    page.on('requestfailed', (req: Request) => this.onFailed(page, req));
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) return;
      this.navigated = true;
      this.current = page;
    });
  };

  private onConsole(page: Page, msg: ConsoleMessage): void {
    const type = msg.type();
    if (type !== 'error' && type !== 'warning') return;
    // Chromium logs every failed load on the console too: that is a network signal already.
    if (msg.text().startsWith('Failed to load resource')) return;
    this.add({
      kind: 'console',
      severity: type === 'error' ? 'moderate' : 'minor',
      message: msg.text().slice(0, 500),
      url: page.url(),
    });
  }

  private onResponse(page: Page, res: Response): void {
    const req = res.request();
    if (res.status() < 400 || !checkedTypes.has(req.resourceType()) || ignoredUrl(req.url(), this.opts.ignoreUrls))
      return;
    const severity: Severity = res.status() >= 500 ? 'serious' : 'moderate';
    this.add({
      kind: 'network',
      severity,
      rule: String(res.status()),
      message: `${req.method()} ${req.url()} answered HTTP ${res.status()}`.slice(0, 500),
      url: page.url(),
    });
  }

  private onFailed(page: Page, req: Request): void {
    const error = req.failure()?.errorText ?? 'failed';
    if (notFailures.test(error) || ignoredUrl(req.url(), this.opts.ignoreUrls)) return;
    this.add({
      kind: 'network',
      severity: 'serious',
      rule: error,
      message: `${req.method()} ${req.url()} failed: ${error}`.slice(0, 500),
      url: page.url(),
    });
  }

  private add(signal: Omit<QualitySignal, 'stepIndex'>): void {
    const full = { ...signal, stepIndex: this.stepIndex };
    const key = fingerprintKey(full);
    if (this.found.has(key)) return;
    if (this.found.size >= this.opts.maxSignals) {
      this.dropped++;
      return;
    }
    this.found.set(key, full);
  }

  private async scan(): Promise<void> {
    if (!this.opts.a11y || this.scans >= this.opts.maxScans) return;
    const page = this.current;
    if (page.isClosed()) return;
    this.scans++;
    this.navigated = false;
    try {
      await page.waitForLoadState('domcontentloaded', { timeout: this.opts.scanTimeoutMs });
      const url = page.url();
      const key = await pageDigest(page);
      // The same document as the last scan (the end of a test that did not change the page): nothing new to find.
      if (key === this.lastKey) return;
      this.lastKey = key;
      for (const f of await scanPage(page, this.opts.scanTimeoutMs, key, this.opts.scanCache)) {
        this.add({ kind: 'a11y', severity: f.impact, rule: f.rule, message: f.help, target: f.target, url });
      }
    } catch {
      this.failedScans++;
    }
  }
}
