// Discovery (issue 34): a page visit in real Chromium on markup that writes when clicked or submitted, whatever its
// control is called: a Rails `data-method="delete"` link, a Turbo `data-turbo-method="delete"` menu button, an htmx
// `hx-delete` disclosure (each also carrying the ARIA of a control that only reveals), a search form whose button
// sends it to /logout (`formaction`), one whose button sends it with POST (`formmethod`), a search form whose action
// is /logout, and a menu that sends DELETE from a script once opened. The server's log is what a user would check:
// no DELETE, PUT, PATCH or POST reached it, and nobody visited /logout.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import { createBenchPool } from '../../bench/support.js';
import { visitPage } from '../../src/browser/discovery/visit-page.js';

const home = `<!doctype html><html><head><title>Posts</title></head><body>
<h1>Posts</h1>
<a href="/posts/3" data-method="delete" aria-haspopup="menu" rel="nofollow">Trash it</a>
<button type="button" data-turbo-method="delete" aria-expanded="false"
  onclick="fetch('/posts/4', { method: 'DELETE' })">Tidy up</button>
<button type="button" hx-delete="/posts/5" aria-expanded="false"
  onclick="fetch('/posts/5', { method: 'DELETE' })">Clean</button>
<button type="button" aria-haspopup="menu" aria-expanded="false" id="more"
  onclick="this.setAttribute('aria-expanded', 'true'); fetch('/posts/6', { method: 'PATCH' }); fetch('/posts/7', { method: 'PUT' })">More</button>
<form role="search" aria-label="Search posts" method="get" action="/search"><input type="search" name="q"></form>
<form role="search" aria-label="Quick search" method="get" action="/search"><input type="search" name="q">
  <button type="submit" formaction="/logout">Go</button></form>
<form role="search" aria-label="Find posts" method="get" action="/find"><input type="search" name="q">
  <button type="submit" formmethod="post">Find</button></form>
<form role="search" aria-label="Look up" method="get" action="/logout"><input type="search" name="q"></form>
<a href="/about">About</a>
</body></html>`;

describe('a discovery visit never sends what writes, whatever the markup calls it', () => {
  let server: Server;
  let origin: string;
  let pool: BrowserPool;
  const log: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      log.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(req.url === '/' ? home : `<!doctype html><title>${req.url}</title><h1>${req.url}</h1>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pool = createBenchPool(1);
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('operates the menu, lists the writing controls as such, and the server saw only GETs and no /logout', async () => {
    const visit = await pool.withContext({}, ({ context }) =>
      visitPage(context, `${origin}/`, { origin, timeoutMs: 20_000, maxActions: 25 }),
    );
    expect(visit.error).toBeNull();
    const kinds = Object.fromEntries(visit.actions.map((a) => [a.name, a.kind]));
    expect(kinds).toMatchObject({
      'Trash it': 'destructive',
      'Tidy up': 'destructive',
      Clean: 'destructive',
      More: 'reveal',
    });
    expect(visit.operated).toContain('button|More');
    expect(visit.links).toContain(`${origin}/about`);
    expect(visit.links).not.toContain(`${origin}/posts/3`);
    // Every form is in the map; a search is what Enter would send with GET to a harmless URL, and it was sent.
    const search = Object.fromEntries(visit.forms.map((f) => [f.name, { method: f.method, search: f.search }]));
    expect(search).toEqual({
      'Search posts': { method: 'get', search: true },
      'Quick search': { method: 'get', search: false },
      'Find posts': { method: 'post', search: false },
      'Look up': { method: 'get', search: false },
    });
    expect(log.filter((line) => line.startsWith('GET /search?q='))).toHaveLength(1);

    expect(log.filter((line) => !line.startsWith('GET '))).toEqual([]);
    expect(log.filter((line) => /logout/.test(line))).toEqual([]);
  }, 60_000);
});
