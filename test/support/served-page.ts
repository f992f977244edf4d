// One static page on a loopback port and one Chromium, for a file whose tests replay steps against that page.
import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { loadPrograms } from '../../src/programs.js';
import { listenOnFreePort } from './net.js';

export interface ServedPage {
  /** The page's URL (filled before the file's tests run). */
  base: string;
  browser: Browser;
}

/** Serves `html` and launches Chromium before the file's tests; closes both after them. */
export function useServedPage(html: string): ServedPage {
  const served = {} as ServedPage;
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
