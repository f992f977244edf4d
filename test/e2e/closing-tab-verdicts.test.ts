import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPlaywrightSpec } from '../../src/browser/export/export.js';
import { replaySteps } from '../../src/browser/replay/replay.js';
import { RunValues } from '../../src/domain/run-values.js';
import type { Step } from '../../src/domain/steps.js';
import { loadPrograms } from '../../src/programs.js';
import { listenOnFreePort } from '../support/net.js';
import { expectBatchSpecPassed, runPlaywrightSpecs } from '../support/playwright-runner.js';

// A tab that closes while a step runs on it. An action that makes its own popup close ("Allow" on a sign-in popup)
// did its job; a check (an assertion, a wait) that was cut short by the tab closing verified nothing and must fail.
// Generated over every check kind, for a popup that closes by itself and one whose button closes it.

const opener = `<!doctype html><title>App</title><h1>App</h1>
<button onclick="window.open('/popup?' + location.search.slice(1), 'p', 'width=400,height=400')">Open provider</button>`;
const popup = (
  closeAfterMs: number | null,
) => `<!doctype html><title>Provider</title><h1>Provider</h1><p>Waiting for you to allow</p>
<button onclick="window.close()">Allow</button>
${closeAfterMs === null ? '' : `<script>setTimeout(() => window.close(), ${closeAfterMs})</script>`}`;

let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(url.pathname === '/popup' ? popup(url.search.includes('closes') ? 300 : null) : opener);
  });
  base = `http://127.0.0.1:${await listenOnFreePort(server)}`;
  browser = await chromium.launch({
    executablePath: loadPrograms().chromium!,
    args: ['--no-sandbox', '--disable-gpu'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

const open: Step = {
  action: 'click',
  locator: "getByRole('button', { name: 'Open provider' })",
  description: 'Open the provider popup',
  opensPage: true,
};
/** The popup's own button that closes it, and the opener's page the run goes back to. */
const allow: Step = {
  action: 'click',
  locator: "getByRole('button', { name: 'Allow' })",
  page: 1,
  description: 'Allow',
};
const back: Step = {
  action: 'assert_visible',
  locator: "getByRole('heading', { name: 'App' })",
  description: 'back in the app',
};

/** Checks that look for what the popup never shows: only the popup closing ends them. */
const checks: Step[] = [
  { action: 'assert_text', value: 'Access granted', page: 1, description: 'granted' },
  {
    action: 'assert_text',
    locator: "getByRole('heading')",
    value: 'Access granted',
    page: 1,
    description: 'granted heading',
  },
  { action: 'assert_visible', locator: "getByText('Access granted')", page: 1, description: 'granted shown' },
  { action: 'wait_for', value: 'Access granted', page: 1, description: 'wait for granted' },
  { action: 'assert_url', value: '/granted', page: 1, description: 'on the granted page' },
];

async function replay(query: string, steps: Step[]) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    return await replaySteps(page, steps, {
      startUrl: `${base}/?${query}`,
      baseUrl: base,
      values: new RunValues(),
      timeoutMs: 3_000,
    });
  } finally {
    await context.close();
  }
}

describe('a tab closing under a step', () => {
  it.each(checks.map((c) => [c.action, c.description, c] as const))(
    '%s (%s) cut short by the popup closing FAILS, naming what it did not see',
    async (_kind, _d, check) => {
      const result = await replay('closes', [open, check]);
      expect(result.status).toBe('FAILED');
      expect(result.failedStepIndex).toBe(1);
      // The reason names what was not seen, never a pass because the tab went away.
      expect(result.error).toMatch(/Access granted|\/granted/);
    },
    30_000,
  );

  it('an action that makes its own popup close did its job: PASSED, and the run goes on in the opener', async () => {
    const result = await replay('stays', [open, allow, back]);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('PASSED');
  }, 30_000);

  it('the exported spec does as replay: the popup closing under its own Allow passes, under a check or before its element showed fails', async () => {
    const spec = (query: string, steps: Step[]) =>
      exportPlaywrightSpec({ name: 'popup', baseUrl: `${base}/?${query}`, steps, configs: {} });
    const allowed = spec('stays', [open, allow, back]);
    expect(allowed).toContain("await mayCloseTab(page, page.getByRole('button', { name: 'Allow' }), async () => {");

    const cutShort = spec('closes', [open, checks[0]!]);
    expect(cutShort).not.toContain('mayCloseTab(page,');

    // An action on an element the popup never had, cut short by it closing: the spec fails, as replay does.
    const neverThere = spec('closes', [
      open,
      { action: 'click', locator: "getByRole('button', { name: 'Deny' })", page: 1, description: 'Deny' },
    ]);
    expect(neverThere).toContain('await mayCloseTab(page,');
    // The three specs in one runner, each its own file with its own verdict.
    const run = await runPlaywrightSpecs({ allowed, cutShort, neverThere });
    expectBatchSpecPassed(run, 'allowed');
    for (const name of ['cutShort', 'neverThere']) {
      expect(run.results[name]?.tests, name).toBe(1);
      expect(run.results[name]?.passed, `${name} fails`).toBe(false);
    }
    expect(run.output).toMatch(/2 failed/);
    expect(run.output).toMatch(/1 passed/);
    expect(run.code).not.toBe(0);
  }, 90_000);

  it.each(['click', 'fill', 'check', 'hover'] as const)(
    '%s on an element the popup never had, cut short by it closing, FAILS',
    async (action) => {
      const missing: Step = {
        action,
        locator: "getByRole('button', { name: 'Deny' })",
        ...(action === 'fill' && { value: 'x' }),
        page: 1,
        description: `${action} Deny`,
      };
      const result = await replay('closes', [open, missing]);
      expect(result.status).toBe('FAILED');
      expect(result.failedStepIndex).toBe(1);
    },
    30_000,
  );

  it('the same checks pass on a popup that shows what they look for (control)', async () => {
    const shown: Step = { action: 'assert_text', value: 'Waiting for you to allow', page: 1, description: 'asks' };
    expect((await replay('stays', [open, shown])).status).toBe('PASSED');
  }, 30_000);
});
