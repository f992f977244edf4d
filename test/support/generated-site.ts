// A generated web application for the discovery tests and bench (issue 34): a home page linking to `sections`
// section pages (`/section-<letters>`), each linking to `items` detail pages (`/section-<letters>/<n>`: one pattern
// per section) and to the next section; every detail page has a search form and an order form. Served by node:http,
// each page after `delayMs`, counting every request per path so a test can say no page was fetched twice.
import { createServer } from 'node:http';
import { listenOnFreePort } from './net.js';

export interface GeneratedSite {
  url: string;
  /** GET requests per path (with query), pages and anything else the browser asked for. */
  requests: () => Map<string, number>;
  /** Requests other than GET (a discovery must submit nothing but searches, which are GETs). */
  otherRequests: () => string[];
  /** Every page's path. */
  paths: string[];
  /**
   * The page patterns of the site, as a discovery should name them: its pages', and with `search` each section's
   * search results (`/section-a?q=`), which a discovery reaches by submitting an item page's search form.
   */
  patterns: string[];
  /**
   * Puts a feedback form (POST, one required field) on the home page, or takes it away: the site as a later release
   * has it, for a test of what a discovery finds new.
   */
  setFeedbackForm(on: boolean): void;
  /** Links each item page to a help page of its own (`/section-a/1/help`, three links from home), or stops to. */
  setHelpPages(on: boolean): void;
  stop(): Promise<void>;
}

/** 0 → a, 25 → z, 26 → ba...: letters only, so no segment looks like an id. */
const letters = (n: number): string => {
  let out = '';
  do {
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  } while (n > 0);
  return out;
};

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head><body><main>${body}</main></body></html>`;

export async function startGeneratedSite(opts: {
  sections: number;
  items: number;
  delayMs?: number;
  /**
   * Item pages carry a search form (the default). A discovery submits it and goes back, fetching the item page
   * again: a test that counts each page's fetches leaves it out.
   */
  search?: boolean;
}): Promise<GeneratedSite> {
  const search = opts.search ?? true;
  const sections = Array.from({ length: opts.sections }, (_, i) => `/section-${letters(i)}`);
  const counts = new Map<string, number>();
  let feedback = false;
  let help = false;
  const feedbackForm =
    '<h2>Feedback</h2><form method="post" action="/feedback" aria-label="Feedback"><label>Message <input type="text" name="message" required></label><button type="submit">Send feedback</button></form>';
  const others: string[] = [];
  const pageOf = (path: string): string | undefined => {
    if (path === '/')
      return html(
        'Home',
        `<h1>Home</h1><nav aria-label="Sections">${sections.map((s) => `<a href="${s}">${s.slice(1)}</a>`).join(' ')}</nav>${feedback ? feedbackForm : ''}`,
      );
    const helpPage = help ? /^(\/section-[a-z]+\/\d+)\/help$/.exec(path) : null;
    if (helpPage && pageOf(helpPage[1]!)) return html('Help', `<h1>Help</h1><a href="${helpPage[1]}">Back</a>`);
    const match = /^\/section-([a-z]+)(?:\/(\d+))?$/.exec(path);
    const index = sections.indexOf(`/section-${match?.[1]}`);
    if (!match || index < 0) return undefined;
    const section = sections[index]!;
    if (match[2] === undefined) {
      const items = Array.from({ length: opts.items }, (_, n) => `<a href="${section}/${n + 1}">Item ${n + 1}</a>`);
      const next = sections[index + 1];
      return html(
        `Section ${match[1]}`,
        `<h1>Section ${match[1]}</h1><a href="/">Home</a> ${items.join(' ')}${next ? ` <a href="${next}">Next section</a>` : ''}`,
      );
    }
    const n = Number(match[2]);
    if (n < 1 || n > opts.items) return undefined;
    return html(
      `Item ${n} of ${match[1]}`,
      `<h1>Item ${n}</h1><a href="${section}">Back to section ${match[1]}</a>${help ? ` <a href="${path}/help">Help</a>` : ''}
${search ? `<form role="search" method="get" action="${section}"><label>Search <input type="search" name="q"></label><button>Search</button></form>` : ''}
<h2>Order</h2><form method="post" action="${section}/${n}/order"><label>Quantity <input type="number" name="quantity" required></label><button type="submit">Order</button></form>`,
    );
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method !== 'GET') others.push(`${req.method} ${path}`);
    else counts.set(path, (counts.get(path) ?? 0) + 1);
    const body = req.method === 'GET' ? pageOf(path) : undefined;
    setTimeout(() => {
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(body ?? html('Not found', '<h1>Not found</h1>'));
    }, opts.delayMs ?? 0);
  });
  const port = await listenOnFreePort(server);
  const items = sections.flatMap((s) => Array.from({ length: opts.items }, (_, n) => `${s}/${n + 1}`));
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => new Map(counts),
    otherRequests: () => [...others],
    paths: ['/', ...sections, ...items],
    patterns: [
      '/',
      ...sections,
      ...(opts.items > 0 ? sections.map((s) => `${s}/{id}`) : []),
      ...(opts.items > 0 && search ? sections.map((s) => `${s}?q=`) : []),
    ].sort(),
    setFeedbackForm(on) {
      feedback = on;
    },
    setHelpPages(on) {
      help = on;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
