import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchActivity } from '../../src/browser/steps/actions.js';
import { loadPrograms } from '../../src/programs.js';
import { listenOnFreePort } from '../support/net.js';

// What the agent sees after a step must be the page the step produced. A compat burn-in once failed under load:
// after "Place order" the snapshot still showed the checkout form, because the quiet time was counted from before
// the click (whose wait for the button to be actionable had used it up), so a request the click started a moment
// later was never waited for. The class: a page's reaction that starts late (a timer, a fetch, a navigation),
// after a click that itself took a while, with a slow or a fast answer. Each row must show the reaction's result.
type Reaction = 'fetch' | 'navigate' | 'timer';
interface Row {
  reaction: Reaction;
  /** How long the button stays disabled after load (the click waits for it: actionability). */
  actionableMs: number;
  /** How long after the click the page starts its reaction. */
  reactMs: number;
  /** How long the server takes to answer the fetch or the navigation. */
  answerMs: number;
}

const rows: Row[] = (['fetch', 'navigate', 'timer'] as const).flatMap((reaction) =>
  [0, 300].flatMap((actionableMs) =>
    [0, 100].flatMap((reactMs) =>
      (reaction === 'timer' ? [0] : [0, 300]).map((answerMs) => ({ reaction, actionableMs, reactMs, answerMs })),
    ),
  ),
);

function page(row: Row): string {
  const react = {
    // Three promise hops after the answer, as an app reading JSON then rendering does.
    fetch: `fetch('/api?ms=${row.answerMs}').then((r) => r.json()).then((j) => Promise.resolve(j)).then((j) => { document.querySelector('h1').textContent = 'Done ' + j.n; })`,
    navigate: `location.href = '/done?ms=${row.answerMs}'`,
    timer: `document.querySelector('h1').textContent = 'Done 1'`,
  }[row.reaction];
  return `<!doctype html><title>Form</title><h1>Form</h1><button disabled>Go</button><script>
const button = document.querySelector('button');
setTimeout(() => { button.disabled = false; }, ${row.actionableMs});
button.addEventListener('click', () => setTimeout(() => { ${react}; }, ${row.reactMs}));
</script>`;
}

describe('settling after an action waits for a reaction that starts late', () => {
  let browser: Browser;
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const ms = Number(url.searchParams.get('ms') ?? 0);
      setTimeout(() => {
        if (url.pathname === '/api') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"n":1}');
        } else if (url.pathname === '/done') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<!doctype html><title>Done</title><h1>Done 1</h1>');
        } else {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(page(JSON.parse(url.searchParams.get('row') ?? '{}') as Row));
        }
      }, ms);
    });
    base = `http://127.0.0.1:${await listenOnFreePort(server)}`;
    browser = await chromium.launch({ executablePath: loadPrograms().chromium!, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it.each(rows)(
    '$reaction starting $reactMs ms after a click that waited $actionableMs ms, answered in $answerMs ms',
    async (row) => {
      const context = await browser.newContext();
      try {
        const tab = await context.newPage();
        await tab.goto(`${base}/?row=${encodeURIComponent(JSON.stringify(row))}`);
        const activity = watchActivity(tab);
        await tab.getByRole('button', { name: 'Go' }).click();
        await activity.settle();
        expect(await tab.locator('h1').textContent()).toBe('Done 1');
      } finally {
        await context.close();
      }
    },
  );
});
