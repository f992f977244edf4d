import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearScanCache,
  pageDigest,
  scanPage,
  type AxeFinding,
  type ScanCache,
} from '../../src/browser/quality/axe-scan.js';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import { pageFunction } from '../../src/browser/page-function.js';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { a11yScanTtlMs, projectScanCache } from '../../src/services/a11y-scans.js';
import { createBenchPool } from '../../bench/support.js';
import { freshDatabase } from '../support/app-context.js';

// The project's scan cache may only ever save work, never change what a scan reports. A document's digest must
// therefore change with everything axe reads (markup, stylesheets by content, rules added through the CSSOM, open
// shadow roots, same-origin frames, the viewport) and may ignore only what axe never reads (script code, nonces,
// integrity hashes, hidden inputs' values, CSRF meta tokens). Checked as a matrix over one page with each part
// changed by itself: the findings a cached path gives equal a fresh scan's, on Postgres, across "workers".

interface Variant {
  token: string;
  nonce: string;
  code: string;
  hidden: string;
  labelFor: boolean;
  cssColour: string;
  cssomColour: string;
  shadowAlt: boolean;
  frameLabel: boolean;
  width: number;
}
const base: Variant = {
  token: 'tok-1',
  nonce: 'n-1',
  code: 'one',
  hidden: 'h-1',
  labelFor: true,
  cssColour: '#222222',
  cssomColour: '#222222',
  shadowAlt: true,
  frameLabel: true,
  width: 1280,
};

const page = (v: Variant) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Form</title>
<meta name="csrf-token" content="${v.token}"><link rel="stylesheet" href="/site.css">
<script src="/app.js" integrity="sha256-${v.nonce}" crossorigin="anonymous"></script>
<script nonce="${v.nonce}">window.build = "${v.code}";</script><style id="dynamic"></style></head>
<body><main><h1>Form</h1><form><input type="hidden" name="csrf" value="${v.hidden}"><input value="${v.hidden}" name="csrf2" type="hidden">
<label ${v.labelFor ? 'for="email"' : ''}>Email</label><input id="email" type="email"><p class="hint">We never share it.</p><p class="note">Saved drafts expire.</p>
<button type="submit">Save</button></form><x-card></x-card><iframe src="/frame.html" title="Newsletter"></iframe></main>
<script>
customElements.define('x-card', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<img src="data:," ${v.shadowAlt ? 'alt="Logo"' : ''}>'; } });
document.getElementById('dynamic').sheet.insertRule('.note { color: ${v.cssomColour}; background: #ffffff }');
</script></body></html>`;
const frame = (v: Variant) =>
  `<!doctype html><html lang="en"><head><title>Newsletter</title></head><body>${v.frameLabel ? '<label for="n">Newsletter email</label>' : '<label>Newsletter email</label>'}<input id="n"></body></html>`;
const css = (v: Variant) => `.hint { color: ${v.cssColour}; background: #ffffff }`;

/** Each change by itself: whether axe reads what it changes. */
const invisible: [string, Partial<Variant>][] = [
  ['a CSRF meta token', { token: 'tok-2' }],
  ['a CSP nonce and integrity hash', { nonce: 'n-2' }],
  ['inline script code', { code: 'two' }],
  ["hidden inputs' values (either attribute order)", { hidden: 'h-2' }],
];
const visible: [string, Partial<Variant>][] = [
  ['a label no longer associated', { labelFor: false }],
  ["a stylesheet's content at the same address", { cssColour: '#c8c8c8' }],
  ['a rule added through the CSSOM', { cssomColour: '#cdcdcd' }],
  ["an open shadow root's content", { shadowAlt: false }],
  ["a same-origin frame's content", { frameLabel: false }],
  ['the viewport', { width: 800 }],
];

const axeLoaded = pageFunction<() => boolean>('() => typeof window.axe === "object"');
const rules = (findings: AxeFinding[]) => findings.map((f) => `${f.rule} ${f.target}`).sort();

describe('the project scan cache never changes what a scan reports', () => {
  let server: Server;
  let url: string;
  let current = base;
  let pool: BrowserPool;
  let db: DB;
  let projectId: string;
  let otherProjectId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const body =
        req.url === '/site.css'
          ? css(current)
          : req.url === '/frame.html'
            ? frame(current)
            : req.url === '/app.js'
              ? ''
              : page(current);
      res.writeHead(200, {
        'content-type': req.url === '/site.css' ? 'text/css' : 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/form`;
    pool = createBenchPool(1);
    db = await freshDatabase('postgres');
    projectId = (await seedProject(db, { organization: 'Acme', project: 'Shop' })).projectId;
    otherProjectId = (await seedProject(db, { organization: 'Globex', project: 'Other' })).projectId;
  }, 60_000);
  afterAll(async () => {
    await pool?.close();
    await db?.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** One visit of the page as `v` in a fresh context: its digest, findings through `store`, whether a scan ran. */
  const visit = (v: Variant, store?: ScanCache) => {
    current = v;
    return pool.withContext({ viewport: { width: v.width, height: 800 } }, async ({ page: p }) => {
      await p.goto(url, { waitUntil: 'load' });
      const digest = await pageDigest(p);
      const findings = await scanPage(p, 10_000, digest, store);
      return { digest, findings: rules(findings), scanned: await p.evaluate(axeLoaded) };
    });
  };
  const fresh = (v: Variant) => {
    clearScanCache();
    return visit(v);
  };

  it('a change axe cannot see keeps the digest, and the document is not scanned again', async () => {
    const store = projectScanCache({ db }, projectId);
    clearScanCache();
    const first = await visit(base, store);
    expect(first.scanned).toBe(true);
    for (const [what, change] of invisible) {
      clearScanCache(); // another worker: only the project's store knows the document
      const again = await visit({ ...base, ...change }, store);
      expect({ what, digest: again.digest, scanned: again.scanned, findings: again.findings }).toEqual({
        what,
        digest: first.digest,
        scanned: false,
        findings: first.findings,
      });
    }
  }, 120_000);

  it('a change axe can see changes the digest, and the cached path reports what a fresh scan reports', async () => {
    const store = projectScanCache({ db }, projectId);
    const before = await fresh(base);
    await visit(base, store);
    let differing = 0;
    for (const [what, change] of visible) {
      const variant = { ...base, ...change };
      const expected = await fresh(variant);
      clearScanCache();
      const cached = await visit(variant, store);
      expect({ what, sameDigest: cached.digest === before.digest, findings: cached.findings }).toEqual({
        what,
        sameDigest: false,
        findings: expected.findings,
      });
      if (expected.findings.join() !== before.findings.join()) differing++;
    }
    // The matrix is only worth something if most of its changes really change the findings a stale cache would keep.
    expect(differing).toBeGreaterThanOrEqual(5);
  }, 180_000);

  it('findings are kept a week per project, and a store that fails is passed over, never the scan', async () => {
    clearScanCache();
    await visit(base, projectScanCache({ db }, projectId));
    clearScanCache();
    expect((await visit(base, projectScanCache({ db }, otherProjectId))).scanned).toBe(true);
    clearScanCache();
    const weekLater = projectScanCache({ db }, projectId, () => Date.now() + a11yScanTtlMs + 60_000);
    expect((await visit(base, weekLater)).scanned).toBe(true);

    const broken: ScanCache = {
      get: () => Promise.reject(new Error('database gone')),
      set: () => Promise.reject(new Error('database gone')),
    };
    clearScanCache();
    const despite = await visit(base, broken);
    expect(despite).toMatchObject({ scanned: true, findings: (await fresh(base)).findings });
  }, 120_000);
  // A large page's scan can outlast its timeout; axe goes on in the page regardless. What it finds is kept, and a
  // document whose scan never ended is not scanned again at each run (it would hold the renderer again each time).
  it('a scan past its timeout keeps its late findings; one that never ended is not started again', async () => {
    clearScanCache();
    const expected = (await fresh(base)).findings;
    clearScanCache();
    current = base;
    const late = await pool.withContext({ viewport: { width: base.width, height: 800 } }, async ({ page: p }) => {
      await p.goto(url, { waitUntil: 'load' });
      const digest = await pageDigest(p);
      await expect(scanPage(p, 1, digest)).rejects.toThrow('axe scan took longer than 1 ms');
      // The scan goes on in the page: once it ended, the same document is answered from what it found.
      await expect.poll(() => p.evaluate(axeLoaded)).toBe(true);
      await expect.poll(async () => rules(await scanPage(p, 1, digest)), { timeout: 20_000 }).toEqual(expected);
      return digest;
    });
    expect((await visit(base)).scanned).toBe(false);
    expect(late).toBe((await visit(base)).digest);

    clearScanCache();
    const never = await pool.withContext({ viewport: { width: base.width, height: 800 } }, async ({ page: p }) => {
      await p.goto(url, { waitUntil: 'load' });
      const digest = await pageDigest(p);
      // An axe that never answers, so the page surely closes before the scan ends.
      await p.evaluate('window.axe = { run: () => new Promise(() => {}) }');
      await expect(scanPage(p, 1, digest)).rejects.toThrow('axe scan took longer than 1 ms');
      return digest;
    });
    // The page closed before the scan ended: the document is marked, and a later visit does not scan it.
    await expect
      .poll(() =>
        pool.withContext({}, async ({ page: p }) => {
          await p.goto(url, { waitUntil: 'load' });
          const refused = await scanPage(p, 10_000, never).then(
            () => '',
            (err: Error) => err.message,
          );
          return { refused, scanned: await p.evaluate(axeLoaded) };
        }),
      )
      .toEqual({
        refused: 'an earlier axe scan of this document took longer than 1 ms and never ended',
        scanned: false,
      });
  }, 120_000);
});
