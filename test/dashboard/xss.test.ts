import type { ConsoleMessage, Dialog, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { completeReview, insertChangeReview } from '../../src/db/queries/change-reviews.js';
import { insertChat } from '../../src/db/queries/chats.js';
import { finishReply, insertTurn } from '../../src/db/queries/chat-turns.js';
import { newId, newShortId } from '../../src/ids.js';
import { createToken } from '../../src/db/queries/admin.js';
import { pageFunction } from '../../src/browser/page-function.js';
import { insertSuggestions } from '../../src/db/queries/discovery-suggestions.js';
import { insertDiscoveryRows } from '../support/discovery-rows.js';
import { applicationIdOf } from '../support/recorded.js';
import type { ApiContext } from '../support/app-context.js';
import { serveAppForTests } from '../support/served-app.js';
import { openDashboard, type DashboardBrowser } from '../support/dashboard.js';

// Issue 23: every field a person or the model writes, rendered by the dashboard with classic XSS payloads, in real
// Chromium. Nothing may run (no dialog, no window.__xss, no Content-Security-Policy violation, which would mean
// markup got through and only the CSP stopped it), no element or javascript: link of a payload may exist, the
// payload shows as text, and the page keeps its layout (header, main menu, one <h1>, <main>).

/** Classic payloads; each carries its number, so the page can be searched for it and a run traced to it. */
const payloads = [
  '<script>window.__xss=1</script>xss1',
  '<img src=x onerror="window.__xss=2" data-xss>xss2',
  '<svg onload="window.__xss=3" data-xss>xss3',
  '"><script>alert(4)</script>xss4',
  "'><img src=x onerror=alert(5) data-xss>xss5",
  '</title><script>alert(6)</script>xss6',
  '</textarea><script>alert(7)</script>xss7',
  '<a href="javascript:alert(8)" data-xss>xss8</a>',
  '[xss9](javascript:alert(9))',
  '[xss10](JaVaScRiPt:alert(10))',
  '<iframe src="javascript:alert(11)" data-xss></iframe>xss11',
  '<body onload=alert(12) data-xss>xss12',
  '<details open ontoggle=alert(13) data-xss>xss13',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(14) data-xss>xss14',
  '<svg><script>alert(15)</script></svg>xss15',
  '{{constructor.constructor("alert(16)")()}}xss16',
  '${alert(17)}xss17',
  '<%= alert(18) %>xss18',
  '<div hx-get="/v1/applications" hx-trigger="load" data-xss>xss19</div>',
  '<div hx-on:click="alert(20)" hx-trigger="load" data-xss>xss20</div>',
  '<object data="javascript:alert(21)" data-xss>xss21</object>',
  '<embed src="javascript:alert(22)" data-xss>xss22',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(23)" data-xss>xss23',
  '<base href="javascript:alert(24)//" data-xss>xss24',
  '<form action="javascript:alert(25)" data-xss><button>xss25</button></form>',
  '\u202e<script>alert(26)</script>\u202dxss26',
  '\uff1cscript\uff1ealert(27)\uff1c/script\uff1exss27',
  '<scr<script>ipt>alert(28)</scr</script>ipt>xss28',
  '![xss29](x" onerror="alert(29))',
  '<style>@import "javascript:alert(30)";</style><p data-xss>xss30</p>',
  '&lt;script&gt;alert(31)&lt;/script&gt;&#x3C;img data-xss&#x3E;xss31',
  '<input autofocus onfocus=alert(32) data-xss>xss32',
];
const marker = (i: number) => `xss${i + 1}`;

interface Probe {
  xss: unknown;
  injected: number;
  scriptLinks: number;
  header: number;
  nav: number;
  h1: number;
  main: number;
  text: string;
}
const inspect = pageFunction<() => Probe>(`() => ({
  xss: window.__xss,
  injected: document.querySelectorAll('[data-xss], [onerror], [onload], [ontoggle], [onfocus], [hx-on\\\\:click]').length,
  scriptLinks: [...document.querySelectorAll('[href], [src], [action], [data]')].filter((el) => /^\\s*javascript:/i.test(el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('action') ?? el.getAttribute('data') ?? '')).length,
  header: document.querySelectorAll('body > header.top').length,
  nav: document.querySelectorAll('nav[aria-label="Main"]').length,
  h1: document.querySelectorAll('h1').length,
  main: document.querySelectorAll('body > main#main').length,
  text: document.body.innerText,
})`);

describe('dashboard: XSS payloads in every written field', () => {
  let ctx: ApiContext;
  let dash: DashboardBrowser;
  const dialogs: string[] = [];
  const violations: string[] = [];
  const pages: Array<{ path: string; markers: number[] }> = [];

  const served = serveAppForTests('postgres', openDashboard);
  beforeAll(async () => {
    ({ api: ctx, front: dash } = served);
    const { db } = ctx;
    const projectId = ctx.tenant.projectId;
    for (const [i, p] of payloads.entries()) {
      const app = await ctx.call('POST', '/v1/applications', { name: p });
      expect(app.status, `application ${p}`).toBe(201);
      // Its extra header and cookie values are rendered back into the environment form's boxes.
      const env = await ctx.call('POST', `/v1/applications/${app.body.shortId}/environments`, {
        name: p,
        url: `https://staging-${i}.shop.test/`,
        access: { headers: [{ name: 'x-xss', value: p }], cookies: [{ name: 'xss', value: p }] },
      });
      expect(env.status).toBe(201);
      const scenario = await ctx.call('POST', '/v1/scenarios', { name: p, description: p, instructions: p });
      expect(scenario.status, `scenario ${p}`).toBe(201);
      expect(
        (await ctx.call('POST', '/v1/device-presets', { name: p, viewport: { width: 390, height: 844 } })).status,
        `device preset ${p}`,
      ).toBe(201);
      await createToken(db, projectId, 'badge', p);
      const review = await ctx.call('PUT', '/v1/merge-request-review-settings', {
        provider: 'github',
        repository: `acme/shop-${i}`,
        reviewContext: p,
      });
      expect(review.status, `review settings ${p}`).toBe(200);
      const applicationId = await applicationIdOf(db, app.body.shortId);
      // A discovery's map as the explored site wrote it (page titles, form and field names, submit labels) and a
      // suggestion as the model worded it: the coverage page shows them all.
      const discovery = await insertDiscoveryRows(db, {
        projectId,
        applicationId,
        startUrl: `https://staging-${i}.shop.test/`,
        nav: ['/'],
        map: [
          {
            pattern: '/',
            title: p,
            status: 200,
            forms: [
              {
                key: `f${i}`,
                name: p,
                method: 'post',
                action: '/x',
                fields: [{ label: p, name: 'x', type: 'text', required: true }],
                submit: p,
                search: false,
              },
            ],
          },
          { pattern: '/p/{id}', example: '/p/1', title: p, status: 200, forms: [] },
        ],
      });
      await insertSuggestions(db, discovery.id, projectId, [
        {
          name: p,
          goal: p,
          expectedResult: p,
          reason: p,
          startUrl: '/',
          covers: { patterns: ['/'], forms: [`f${i}@/x`] },
          fingerprint: `xss-${i}`,
        },
      ]);
      // A test case as burn-in leaves it: the model wrote its step descriptions and, for a failed one, the reason.
      const testCaseId = newId();
      await db
        .insertInto('test_cases')
        .values({
          id: testCaseId,
          project_id: projectId,
          application_id: applicationId,
          name: p,
          goal: p,
          expected_result: p,
          is_enabled: true,
          generation_status: 'FAILED',
          failure_reason: p,
          steps: JSON.stringify([
            { action: 'navigate', value: '/', description: p },
            { action: 'click', locator: "getByRole('button', { name: 'Go' })", description: p },
          ]),
          steps_version: 1,
          created_at: new Date(),
          updated_at: new Date(),
        } as never)
        .execute();
      const plan = await ctx.call('POST', '/v1/test-plans', { name: p, testCaseIds: [testCaseId] });
      expect(plan.status, `plan ${p}`).toBe(201);
      // A run that failed on the model's words: its branch and commit message come from CI.
      const run = { id: newId(), shortId: newShortId('run') };
      await db
        .insertInto('runs')
        .values({
          id: run.id,
          short_id: run.shortId,
          project_id: projectId,
          status: 'COMPLETED',
          result: 'FAILED',
          branch: p,
          commit_message: p,
          test_count: 1,
          created_at: new Date(),
        } as never)
        .execute();
      await db
        .insertInto('run_test_cases')
        .values({
          id: newId(),
          run_id: run.id,
          test_case_id: testCaseId,
          name: p,
          goal: p,
          application_id: applicationId,
          status: 'COMPLETED',
          result: 'FAILED',
          result_title: p,
          error: p,
          failed_step_index: 1,
        } as never)
        .execute();
      // A conversation: the person's message, the model's reply (markdown) and a change review's summary.
      const chat = { id: newId(), shortId: newShortId('chat') };
      await insertChat(db, { id: chat.id, shortId: chat.shortId, projectId, source: 'ui', applicationOverrides: [] });
      await db.updateTable('chats').set({ title: p }).where('id', '=', chat.id).execute();
      const assistantMessageId = newId();
      await insertTurn(db, { chatId: chat.id, turn: 1, text: p, userMessageId: newId(), assistantMessageId });
      await finishReply(db, assistantMessageId, {
        status: 'COMPLETED',
        text: `${p}\n\n**${p}**\n\n- ${p}`,
        toolsUsed: [],
      });
      const reviewId = newId();
      await insertChangeReview(db, {
        id: reviewId,
        chatId: chat.id,
        projectId,
        assistantMessageId,
        mode: 'rawChanges',
        source: 'api',
        provider: null,
        prUrl: null,
        changeDescription: p,
        diff: 'diff --git a/x b/x',
        context: p,
        applicationOverrides: [],
        metadata: {},
      });
      await completeReview(db, reviewId, {
        verdict: 'Changes Requested',
        summary: p,
        tests: [{ testCaseId, name: p, origin: 'new', result: 'FAILED', url: 'x' }],
      });
      pages.push(
        { path: `/test-cases/${testCaseId}`, markers: [i] },
        { path: `/test-plans/${plan.body.shortId}`, markers: [i] },
        { path: `/runs/${run.shortId}`, markers: [i] },
        { path: `/chats/${chat.shortId}`, markers: [i] },
        { path: `/applications/${app.body.shortId}/environments/${env.body.shortId}/edit`, markers: [i] },
        { path: `/scenarios/${scenario.body.shortId}/edit`, markers: [i] },
        { path: `/applications/${app.body.shortId}/coverage`, markers: [i] },
      );
    }
    const all = payloads.map((_, i) => i);
    for (const list of ['/device-presets', '/scenarios', '/project/badge', '/git'])
      pages.push({ path: list, markers: all });
    for (const list of [
      '/applications',
      '/test-plans',
      '/runs',
      '/runs?page=2',
      '/test-cases',
      '/test-cases?page=2',
      '/chats',
      '/chats?page=2',
      '/reviews',
      '/reviews?page=2',
    ]) {
      pages.push({
        path: list,
        markers: list.includes('page=2') ? [] : list === '/applications' || list === '/test-plans' ? all : [],
      });
    }
    dash.page.on('dialog', (d: Dialog) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss();
    });
    dash.page.on('console', (m: ConsoleMessage) => {
      if (/content security policy|refused to/i.test(m.text())) violations.push(m.text());
    });
    await dash.signIn(ctx.tenant.token);
  }, 120_000);

  const visit = async (page: Page, path: string) => {
    const res = await page.goto(`${dash.url}${path}`);
    expect(res?.status(), path).toBe(200);
    expect(res?.headers()['content-security-policy'], path).toContain("script-src 'self'");
    // Give onload/onerror/autofocus handlers and htmx's load triggers their moment.
    await page.waitForLoadState('load');
    await page.waitForTimeout(50);
    return page.evaluate(inspect);
  };

  it(`renders ${payloads.length} payloads in names, goals, steps, failure reasons, runs, chat messages, replies, review summaries, scenarios, environment headers and cookies, badge token names, review context, discovered pages and suggested tests: nothing runs, the layout holds`, async () => {
    let checked = 0;
    for (const { path, markers } of pages) {
      const probe = await visit(dash.page, path);
      expect(probe.xss, path).toBeUndefined();
      expect(probe.injected, `${path}: an element from a payload`).toBe(0);
      expect(probe.scriptLinks, `${path}: a javascript: URL`).toBe(0);
      expect([probe.header, probe.nav, probe.h1, probe.main], `${path}: header, main menu, one h1, main`).toEqual([
        1, 1, 1, 1,
      ]);
      for (const i of markers) expect(probe.text, `${path} shows payload ${i + 1} as text`).toContain(marker(i));
      checked++;
    }
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
    expect(checked).toBe(payloads.length * 7 + 14);
  }, 180_000);

  it('control: the probes see an injected payload and a CSP violation when there is one', async () => {
    // A page the dashboard would never serve, with the dashboard's own policy: markup got through, the CSP held.
    const page = await dash.context.newPage();
    const seen: string[] = [];
    page.on(
      'console',
      (m: ConsoleMessage) => void (/content security policy|refused to/i.test(m.text()) && seen.push(m.text())),
    );
    await page.route(`${dash.url}/xss-control`, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        headers: { 'content-security-policy': "default-src 'self'; script-src 'self'" },
        body: `<title>x</title><main><p>${payloads[0]}${payloads[1]}${payloads[7]}</p></main>`,
      }),
    );
    await page.goto(`${dash.url}/xss-control`);
    await page.waitForTimeout(100);
    const probe = await page.evaluate(inspect);
    expect(probe.xss).toBeUndefined();
    expect(probe.injected).toBeGreaterThan(0);
    expect(probe.scriptLinks).toBe(1);
    expect(probe.header).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    await page.close();
  });
});
