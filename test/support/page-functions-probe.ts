// Runs every function Proctor sends into a browser page, the way the service runs them: started with
// `node --import tsx` (what `npm run dev` and the Docker image run), through the browser pool the worker uses,
// on a small fixture page. Prints what each one returned as one JSON line; test/unit/page-functions.test.ts reads
// it. Vitest's own transform never shows the defects this finds (tsx wraps named inner functions in `__name`).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageExcerpt } from '../../src/browser/record/excerpt.js';
import { createNetworkGuard } from '../../src/browser/context/network-guard.js';
import { createBrowserPool } from '../../src/browser/context/pool.js';
import { locatorForRef } from '../../src/browser/record/record.js';
import { replaySteps } from '../../src/browser/replay/replay.js';
import { observe } from '../../src/browser/record/snapshot.js';
import { captureBrowserState } from '../../src/browser/context/state.js';
import { RunValues } from '../../src/domain/run-values.js';
import type { Step } from '../../src/domain/steps.js';
import { explorePage } from '../../src/services/chat-explore.js';
import { visitPage } from '../../src/browser/discovery/visit-page.js';

const signIn = `<!doctype html><title>Sign in</title><main>
<h1>Sign in</h1>
<div role="alert">Wrong password for ada@example.com</div>
<label for="all">Select all</label><input type="checkbox" id="all" name="all" data-testid="select-all">
<p>Invoices 1 and 2</p><button>Delete</button><button>Delete</button>
<a href="/orders">Orders</a>
</main>`;
const orders = `<!doctype html><title>Orders</title><main><h1>Orders</h1><a href="/">Back</a></main>`;
// The test id a step was recorded with now sits on another button; the recorded one is still there.
const moved = `<!doctype html><title>Edit</title><main><button data-testid="save">Cancel</button> <button>Save</button></main>`;

const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(req.url === '/orders' ? orders : req.url === '/moved' ? moved : signIn);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const pool = createBrowserPool({ concurrency: 1, networkGuard: createNetworkGuard({ allowPrivateNetworks: true }) });

try {
  // A state with sessionStorage makes the pool seed it with an init script; capturing it reads it back in the page.
  const state = {
    cookies: [],
    origins: [{ origin, localStorage: [], sessionStorage: [{ name: 'draft', value: 'kept' }] }],
    url: `${origin}/`,
  };
  const inPage = await pool.withContext({ state, projectId: 'probe' }, async ({ context, page }) => {
    await page.goto(`${origin}/`);
    const excerpt = await pageExcerpt(page, { PASSWORD: 'ada@example.com' });
    // Recording reads an element's own aria snapshot, which drops the page's refs: observe again before each.
    const refs = async (pattern: RegExp) =>
      (await observe(page)).snapshot
        .split('\n')
        .filter((l) => pattern.test(l))
        .map((l) => /\[ref=([^\]]+)\]/.exec(l)?.[1] ?? 'missing');
    const checkbox = await locatorForRef(page, (await refs(/checkbox "Select all"/))[0] ?? 'missing');
    // Two buttons of one name: recording pins the index of the second one in the page.
    const secondDelete = await locatorForRef(page, (await refs(/button "Delete"/))[1] ?? 'missing');
    const captured = await captureBrowserState(context, page);
    return {
      excerpt,
      checkbox,
      secondDelete,
      sessionStorage: captured.origins.find((o) => o.origin === origin)?.sessionStorage ?? [],
    };
  });
  // Replay: a text the page does not show fails with an excerpt of what it shows; a moved test id is compared in the page.
  const replay = (path: string, steps: Step[]) =>
    pool.withContext({ projectId: 'probe' }, async ({ page }) => {
      const { status, error, evidence, changes } = await replaySteps(page, steps, {
        startUrl: `${origin}${path}`,
        baseUrl: origin,
        values: new RunValues(),
        timeoutMs: 3_000,
        probeMs: 1_000,
      });
      return { status, error, evidence, changes };
    });
  const mismatch = await replay('/', [{ action: 'assert_text', value: 'Welcome back, Ada', description: 'Signed in' }]);
  const movedTestId = await replay('/moved', [
    { action: 'click', locator: "getByTestId('save')", target: { role: 'button', name: 'Save' }, description: 'Save' },
  ]);
  const explored = await explorePage(
    { url: `${origin}/` },
    { browsers: pool, pageBudget: 2, timeoutMs: 30_000, projectId: 'probe' },
  );
  // Discovery: one visit reads the page (forms, controls, links) and waits for it to settle, both in the page.
  const visited = await pool.withContext({ projectId: 'probe' }, ({ context }) =>
    visitPage(context, `${origin}/`, { origin, timeoutMs: 10_000, maxActions: 5 }),
  );
  process.stdout.write(`${JSON.stringify({ ...inPage, mismatch, movedTestId, explored, visited })}\n`);
} finally {
  await pool.close();
  server.close();
}
