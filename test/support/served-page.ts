// One static page on a loopback port and one Chromium, for a file whose tests replay steps against that page.
import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { replaySteps, type ReplayResult } from '../../src/browser/replay/replay.js';
import { RunValues } from '../../src/domain/run-values.js';
import type { Step } from '../../src/domain/steps.js';
import { loadPrograms } from '../../src/programs.js';
import { listenOnFreePort } from './net.js';

export interface ServedPage {
  /** The page's URL (filled before the file's tests run). */
  base: string;
  browser: Browser;
  /** Replays `steps` from the page, in a browser context of their own (closed after), with no run values. */
  replay(steps: Step[], timing: { timeoutMs: number; probeMs?: number }): Promise<ReplayResult>;
}

/** Serves `html` and launches Chromium before the file's tests; closes both after them. */
export function useServedPage(html: string): ServedPage {
  const served = {
    async replay(steps, timing) {
      const context = await served.browser.newContext();
      try {
        return await replaySteps(await context.newPage(), steps, {
          startUrl: served.base,
          baseUrl: served.base,
          values: new RunValues(),
          ...timing,
        });
      } finally {
        await context.close();
      }
    },
  } as ServedPage;
  let server: Server | undefined;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
    });
    served.base = `http://127.0.0.1:${await listenOnFreePort(server)}`;
    served.browser = await chromium.launch({
      executablePath: loadPrograms().chromium!,
      args: ['--no-sandbox', '--disable-gpu'],
    });
  }, 60_000);
  afterAll(async () => {
    await served.browser?.close();
    server?.close();
  });
  return served;
}
