// Two small web apps (Shop, Todo) on one node:http server, for the browser-agent tests, and the discovery
// fixture's back office under /d/ (fixtures/discovery-app.ts). Variants change the
// markup at request time so tests can record on one page and replay on another.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnFreePort } from './net.js';
import { cartPage, checkoutPage, loginPage, productsPage, shopCredentials } from './fixtures/shop.js';
import { escapeHtml, page, skinFor, type Variant } from './fixtures/skin.js';
import { todoPage } from './fixtures/todo.js';
import { createCodeAuth, type CodeAuth } from './fixtures/code-auth.js';
import { createMailFlows, type MailFlows } from './fixtures/mail-flows.js';
import { handleInteractions } from './fixtures/interactions/index.js';
import { createFlowFixtures, type FlowFixtures } from './fixtures/flows.js';
import { createAuthFixtures } from './fixtures/auth-toolkit.js';
import { createQualityFixtures, type QualityFixtures } from './fixtures/quality.js';
import { handleLargePage } from './fixtures/large-page.js';
import { createAdminFixture } from './fixtures/admin.js';
import { handleDiscoveryApp } from './fixtures/discovery-app.js';

export type { Variant } from './fixtures/skin.js';
export { products, shopCredentials } from './fixtures/shop.js';

export interface FixtureApps {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  setVariant(variant: Variant): void;
  stop(): Promise<void>;
  /** `METHOD /path?query` of every request so far, in arrival order. */
  requests: () => string[];
  /** Sign-up with an emailed code and a magic-link sign-in under /mail/ (fixtures/mail-flows.ts). */
  mail: Omit<MailFlows, 'handle'>;
  /** Passwordless sign-up and sign-in by emailed code under /codes/<style>/ (fixtures/code-auth.ts). */
  codes: Omit<CodeAuth, 'handle'>;
  /** Dialogs, tabs and files pages under /flows/ (fixtures/flows.ts), with their own variants. */
  flows: Pick<FlowFixtures, 'setFlowVariant'>;
  /** TOTP sign-in under /auth/, protected preview with a notes API under /preview/ (fixtures/auth-toolkit.ts). */
  auth: Omit<ReturnType<typeof createAuthFixtures>, 'handle'>;
  /** A profile page under /quality/ with switchable quality problems (fixtures/quality.ts). */
  quality: Pick<QualityFixtures, 'setQualityProblems'>;
  /** A Django-like admin under /admin/ (fixtures/admin.ts): its groups, as stored now. */
  admin: { groupNames(): string[] };
}

const slowDelayMs = 2_000;

export async function startFixtureApps(): Promise<FixtureApps> {
  let variant: Variant = 'original';
  const log: string[] = [];
  const sessions = new Set<string>();
  const pendingTimers = new Set<NodeJS.Timeout>();
  let orderNumber = 1000;
  const mail = createMailFlows();
  const codes = createCodeAuth();
  const flows = createFlowFixtures();
  const auth = createAuthFixtures();
  const quality = createQualityFixtures();
  const admin = createAdminFixture();

  function html(res: ServerResponse, body: string, status = 200): void {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  }
  function json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
  function redirect(res: ServerResponse, location: string): void {
    res.writeHead(302, { location, 'cache-control': 'no-store' });
    res.end();
  }
  function signedIn(req: IncomingMessage): boolean {
    const match = /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '');
    return match !== null && sessions.has(match[1]!);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fixture.invalid');
    const route = `${req.method} ${url.pathname}`;
    const skin = skinFor(variant);
    const shopPage = (render: typeof productsPage): void =>
      signedIn(req) ? html(res, render(skin)) : redirect(res, '/shop/login');
    if (flows.handle(route, res)) return;
    if (quality.handle(route, res)) return;
    if (handleLargePage(route, res, variant)) return;
    if (await auth.handle(req, res, url)) return;
    if (await admin.handle(req, res, url)) return;
    if (handleDiscoveryApp(req, res, url)) return;

    if (url.pathname.startsWith('/mail/') && (await mail.handle(req, res, url))) return;
    if (url.pathname.startsWith('/codes/') && (await codes.handle(req, res, url))) return;
    switch (route) {
      case 'GET /':
        return html(res, indexPage(variant));
      case 'GET /shop':
      case 'GET /shop/':
        return redirect(res, signedIn(req) ? '/shop/products' : '/shop/login');
      case 'GET /shop/login':
        return html(res, loginPage(skin));
      case 'GET /shop/products':
        return shopPage(productsPage);
      case 'GET /shop/cart':
        return shopPage(cartPage);
      case 'GET /shop/checkout':
        return shopPage(checkoutPage);
      case 'POST /shop/api/login': {
        const body = await readJson(req);
        if (body?.email !== shopCredentials.email || body?.password !== shopCredentials.password) {
          return json(res, 401, { message: 'Invalid email or password' });
        }
        const session = randomBytes(16).toString('hex');
        sessions.add(session);
        res.setHeader('set-cookie', `session=${session}; Path=/; HttpOnly; SameSite=Lax`);
        return json(res, 200, { email: body.email });
      }
      case 'POST /shop/api/orders': {
        if (!signedIn(req)) return json(res, 401, { message: 'Not signed in' });
        await readJson(req);
        if (variant === 'checkoutBroken') return json(res, 500, { message: 'Payment service unavailable' });
        orderNumber += 1;
        return json(res, 201, { id: `ORD-${orderNumber}` });
      }
      case 'GET /todo':
        return redirect(res, '/todo/');
      case 'GET /todo/':
        return html(res, todoPage(skin));
      case 'GET /slow': {
        const timer = setTimeout(() => {
          pendingTimers.delete(timer);
          html(res, page({ title: 'Slow page', skin, main: '<h1>Slow page</h1><p>This page took 2 seconds.</p>' }));
        }, slowDelayMs);
        pendingTimers.add(timer);
        return;
      }
      case 'GET /redirect': {
        const to = url.searchParams.get('to');
        if (!to) return html(res, page({ title: 'Bad request', skin, main: '<h1>Missing "to"</h1>' }), 400);
        return redirect(res, to);
      }
      default:
        if (handleInteractions(req, res, url)) return;
        return html(
          res,
          page({ title: 'Not found', skin, main: `<h1>Not found</h1><p>${escapeHtml(url.pathname)}</p>` }),
          404,
        );
    }
  }

  const server = createServer((req, res) => {
    log.push(`${req.method} ${req.url}`);
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { message: String(err) });
      else res.destroy();
    });
  });
  const port = await listenOnFreePort(server);

  return {
    url: `http://127.0.0.1:${port}`,
    setVariant(next) {
      variant = next;
    },
    requests: () => [...log],
    mail,
    codes,
    flows,
    auth,
    quality,
    admin: { groupNames: admin.groupNames },
    async stop() {
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function indexPage(variant: Variant): string {
  return page({
    title: 'Fixture apps',
    skin: skinFor(variant),
    main: `<h1>Fixture apps</h1>
<nav aria-label="Apps"><a href="/shop/">Shop</a> <a href="/todo/">Todo</a></nav>`,
  });
}
