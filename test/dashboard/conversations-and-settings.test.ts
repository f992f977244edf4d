import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedProject } from '../../src/db/queries/admin.js';
import {
  completeReview,
  insertChangeReview,
  setReviewPhase,
  setReviewRun,
} from '../../src/db/queries/change-reviews.js';
import { insertChat, latestAssistantMessage } from '../../src/db/queries/chats.js';
import { finishReply, insertTurn } from '../../src/db/queries/chat-turns.js';
import { insertConnection } from '../../src/db/queries/tunnels.js';
import { newId, newShortId } from '../../src/ids.js';
import { deletePlanSchedules } from '../../src/temporal/schedules.js';
import type { Tenant } from '../support/app-context.js';
import { expectAccessible, openDashboard, reserveAppUrl, type DashboardBrowser } from '../support/dashboard.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, type Stack } from '../support/worker-context.js';
import { countRows } from '../support/row-counts.js';

// The dashboard's conversation, review and settings pages in the project's Chromium (every non-local request
// refused), on the real stack: API, Temporal worker, Postgres, and the scripted LLM streaming over HTTP.

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i + 1}`).join(' ');

describe('dashboard: conversations, reviews, plans, applications, configs, tunnels', () => {
  let llm: ScriptedLlm;
  let stack: Stack;
  let other: Tenant;
  let dash: DashboardBrowser;
  const mine = { plan: '', env: '', tunnel: '', chat: '', review: '', run: '' };
  const theirs = { plan: '', chat: '' };

  /** A JSON request to the API as `token`. */
  async function api(method: string, path: string, body: unknown, token: string): Promise<any> {
    const res = await stack.app.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json();
  }

  async function projectData(token: string, names: { app: string; secret: string; plain: string; plan: string }) {
    const app = await api('POST', '/v1/applications', { name: names.app, kind: 'web' }, token);
    const env = await api(
      'POST',
      `/v1/applications/${app.shortId}/environments`,
      { name: `${names.app} staging`, url: `https://staging.${names.app.toLowerCase()}.test` },
      token,
    );
    await api(
      'POST',
      '/v1/configs',
      { name: `${names.app.toUpperCase()}_PASSWORD`, value: names.secret, isSecret: true },
      token,
    );
    await api(
      'POST',
      '/v1/configs',
      { name: `${names.app.toUpperCase()}_USER`, value: names.plain, isSecret: false },
      token,
    );
    const plan = await api(
      'POST',
      '/v1/test-plans',
      {
        name: names.plan,
        applications: [{ applicationShortId: app.shortId, environmentShortId: env.shortId }],
        notifications: {
          slack: {
            webhookUrl: `https://hooks.chat.test/services/${names.secret}`,
            channel: '#qa',
            notifyOn: 'failure',
          },
        },
      },
      token,
    );
    await api(
      'POST',
      '/v1/git-integrations',
      { provider: 'github', auth: 'token', token: `ghp_${names.secret}`, webhookSecret: `whsec_${names.secret}` },
      token,
    );
    await api(
      'PUT',
      '/v1/merge-request-review-settings',
      {
        provider: 'github',
        repository: `${names.app.toLowerCase()}/web`,
        environmentMapping: { Preview: app.shortId },
      },
      token,
    );
    return { app: app.shortId as string, env: env.shortId as string, plan: plan.shortId as string };
  }

  async function chatOf(projectId: string, title: string): Promise<{ id: string; shortId: string }> {
    const chat = { id: newId(), shortId: newShortId('chat') };
    await insertChat(stack.db, { ...chat, projectId, source: 'api', applicationOverrides: [] });
    await insertTurn(stack.db, {
      chatId: chat.id,
      turn: 1,
      text: title,
      userMessageId: newId(),
      assistantMessageId: newId(),
    });
    await stack.db.updateTable('chats').set({ title }).where('id', '=', chat.id).execute();
    return chat;
  }

  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    llm = await startScriptedLlm();
    stack = await startStack({ llm, appUrl });
    other = await seedProject(stack.db, { organization: 'Globex', project: 'Other' });

    const made = await projectData(stack.tenant.token, {
      app: 'Shop',
      secret: 'hunter2-shop',
      plain: 'ada@shop.test',
      plan: 'Nightly',
    });
    Object.assign(mine, { plan: made.plan, env: made.env });
    await api(
      'POST',
      `/v1/test-plans/${made.plan}/schedules`,
      { cron: '0 6 * * 1-5', description: 'Weekday mornings' },
      stack.tenant.token,
    );
    const made2 = await projectData(other.token, {
      app: 'Globex',
      secret: 'globex-secret',
      plain: 'them@globex.test',
      plan: 'Their plan',
    });
    theirs.plan = made2.plan;
    mine.tunnel = (
      await api('POST', '/v1/remote-tunnels', { ports: [{ localPort: 5173 }] }, stack.tenant.token)
    ).runnerId;
    await api('POST', '/v1/remote-tunnels', { ports: [{ localPort: 4000 }] }, other.token);
    theirs.chat = (await chatOf(other.projectId, 'Their secret conversation')).shortId;

    dash = await openDashboard(stack.app, appUrl);
    await dash.signIn(stack.tenant.token);
  }, 180_000);

  afterAll(async () => {
    for (const plan of (await stack?.db.selectFrom('test_plans').select('id').execute()) ?? []) {
      await deletePlanSchedules(stack.db, stack.temporal, plan.id);
    }
    await dash?.close();
    await stack?.close();
    await llm?.stop();
  });

  it('sends a message from the dashboard and shows the reply streaming in, then a follow-up in order', async () => {
    const { page } = dash;
    const reply = words(80);
    llm.enqueue({ content: reply, fragmentDelayMs: 50 });
    await page.goto(`${dash.url}/chats`);
    await page.getByLabel('Ask the assistant').fill('Tell me about my tests. Thanks');
    await page.getByRole('button', { name: 'Start a conversation' }).click();
    await page.waitForURL(/\/chats\/chat_[a-z0-9]+$/);
    mine.chat = new URL(page.url()).pathname.split('/').pop()!;

    // What the reader sees of the reply, sampled while it streams (the page updates itself; no reload).
    const assistantText = page.locator('.msg.assistant .text');
    const seen: string[] = [];
    await expect
      .poll(
        async () => {
          const text = (await assistantText.count()) > 0 ? await assistantText.first().textContent() : '';
          if (text && text !== seen.at(-1)) seen.push(text);
          return text;
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(reply);
    const partial = seen.slice(0, -1);
    expect(partial.length, `texts seen: ${seen.length}`).toBeGreaterThanOrEqual(2);
    partial.forEach((text, i) => {
      expect(reply.startsWith(text)).toBe(true);
      if (i > 0) expect(text.length).toBeGreaterThan(partial[i - 1]!.length);
    });
    // Once ended, the page stops polling and no longer offers to stop the reply.
    await expect.poll(() => page.locator('#chat-live[hx-get]').count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop the reply' }).count()).toBe(0);

    llm.enqueue({ content: 'Second answer.' });
    await page.getByLabel('Your message').fill('And one more thing');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(() => page.locator('.msg .text').allTextContents(), { timeout: 30_000 })
      .toEqual(['Tell me about my tests. Thanks', reply, 'And one more thing', 'Second answer.']);

    // The API's url of the conversation is this page; the conversation says it came from the dashboard.
    const view = await (
      await stack.app.request(`/v1/chat/${mine.chat}`, { headers: { authorization: `Bearer ${stack.tenant.token}` } })
    ).json();
    await page.goto(view.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Tell me about my tests.');
    await page.goto(`${dash.url}/chats`);
    const row = page.getByRole('row', { name: /Tell me about my tests/ });
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('ui');
    expect(await page.getByText('Their secret conversation').count()).toBe(0);
    expect(dash.blocked).toEqual([]);
  });

  it("renders the assistant's Markdown, and nothing in it runs or loads", async () => {
    const { page } = dash;
    const reply = [
      '**2 tests** cover checkout:',
      '',
      '- Checkout with a saved card',
      '- Refund the mug',
      '',
      '<img src="/x" onerror="document.title = \'pwned\'">',
      '',
      "[open me](javascript:document.title='pwned') ![pixel](https://tracker.test/p.png)",
    ].join('\n');
    llm.enqueue({ content: reply });
    await page.goto(`${dash.url}/chats`);
    await page.getByLabel('Ask the assistant').fill('Which tests cover **checkout**?');
    await page.getByRole('button', { name: 'Start a conversation' }).click();
    await page.waitForURL(/\/chats\/chat_[a-z0-9]+$/);
    const answer = page.locator('.msg.assistant .text');
    await expect
      .poll(() => answer.locator('li').allTextContents(), { timeout: 30_000 })
      .toEqual(['Checkout with a saved card', 'Refund the mug']);
    expect(await answer.locator('strong').textContent()).toBe('2 tests');
    // Raw HTML stays text, a javascript: link goes nowhere, and no image is loaded from anywhere.
    expect(await answer.getByText('<img src="/x" onerror=').count()).toBe(1);
    expect(await answer.getByRole('link', { name: 'open me' }).getAttribute('href')).toBe('');
    expect(await page.locator('.msg img').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    // What the person typed is shown as typed.
    expect(await page.locator('.msg.user .text').textContent()).toBe('Which tests cover **checkout**?');
    expect(dash.blocked).toEqual([]);
  });

  it('stops a streaming reply with its button, keeping what was written', async () => {
    const { page } = dash;
    const reply = words(400);
    llm.enqueue({ content: reply, fragmentDelayMs: 50 });
    await page.goto(`${dash.url}/chats/${mine.chat}`);
    await page.getByLabel('Your message').fill('Say a lot');
    await page.getByRole('button', { name: 'Send' }).click();
    const last = page.locator('.msg.assistant').last();
    await expect
      .poll(
        async () =>
          (await last.locator('.text').count()) > 0 ? (await last.locator('.text').textContent())!.length : 0,
        { timeout: 30_000 },
      )
      .toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Stop the reply' }).click();
    await expect.poll(() => last.locator('.status').textContent(), { timeout: 15_000 }).toBe('CANCELLED');
    const kept = (await last.locator('.text').textContent())!;
    expect(kept.length).toBeGreaterThan(20);
    expect(kept.length).toBeLessThan(reply.length);
    expect(reply.startsWith(kept)).toBe(true);
  });

  it("gives 404 for another project's conversation and plan, and refuses a message without the CSRF token", async () => {
    for (const path of [`/chats/${theirs.chat}`, `/test-plans/${theirs.plan}`, '/chats/chat_doesnotexist1']) {
      const res = await dash.page.goto(`${dash.url}${path}`);
      expect(res?.status(), path).toBe(404);
      expect(await dash.page.content()).not.toContain('Their secret conversation');
    }
    const chats = () => countRows(stack.db, 'chats');
    const before = await chats();
    const forged = await dash.context.request.post(`${dash.url}/chats`, {
      form: { message: 'sneaky', _csrf: 'forged' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    const bare = await dash.context.request.post(`${dash.url}/chats/${theirs.chat}`, {
      form: { message: 'sneaky' },
      maxRedirects: 0,
    });
    expect(bare.status()).toBe(403);
    expect(await chats()).toBe(before);
    // With the token, a message into another project's conversation is still not found.
    await dash.page.goto(`${dash.url}/chats`);
    const csrf = await dash.page.locator('input[name=_csrf]').first().getAttribute('value');
    const cross = await dash.context.request.post(`${dash.url}/chats/${theirs.chat}`, {
      form: { message: 'sneaky', _csrf: csrf! },
      maxRedirects: 0,
    });
    expect(cross.status()).toBe(404);
    // An empty message is refused with a page that says why.
    const empty = await dash.context.request.post(`${dash.url}/chats`, {
      form: { message: '   ', _csrf: csrf! },
      maxRedirects: 0,
    });
    expect(empty.status()).toBe(400);
    expect(await empty.text()).toContain('Write a message first.');
    expect(await chats()).toBe(before);
  });

  it("shows a change review's verdict, tests and links to its run and merge request on its conversation", async () => {
    const chat = await chatOf(stack.tenant.projectId, 'Review of pull request 42');
    const run = { id: newId(), shortId: newShortId('run') };
    await stack.db
      .insertInto('runs')
      .values({
        id: run.id,
        short_id: run.shortId,
        project_id: stack.tenant.projectId,
        status: 'COMPLETED',
        result: 'FAILED',
      })
      .execute();
    // The rows as the review workflow's activities write them: recorded, running, then its verdict.
    const reviewId = newId();
    await insertChangeReview(stack.db, {
      id: reviewId,
      chatId: chat.id,
      projectId: stack.tenant.projectId,
      assistantMessageId: newId(),
      mode: 'pr',
      source: 'github',
      provider: 'github',
      prUrl: 'https://github.test/acme/shop/pull/42',
      changeDescription: null,
      diff: null,
      context: null,
      applicationOverrides: [],
      metadata: {},
    });
    await setReviewPhase(stack.db, reviewId, 'running tests');
    // Its reply already ended: the page keeps updating because the review still runs.
    await finishReply(stack.db, (await latestAssistantMessage(stack.db, chat.id))!.id, {
      status: 'COMPLETED',
      text: 'Reviewing the change.',
      toolsUsed: [],
    });
    await setReviewRun(stack.db, reviewId, run.id);
    mine.review = chat.shortId;
    mine.run = run.shortId;

    const { page } = dash;
    await page.goto(`${dash.url}/reviews`);
    await page.getByRole('link', { name: 'Review of pull request 42' }).click();
    await page.waitForURL(`${dash.url}/chats/${chat.shortId}`);
    expect(await page.getByText('(running tests)').count()).toBe(1);
    // The verdict arrives while the page is open: it shows without a reload.
    const testCaseId = newId();
    await completeReview(stack.db, reviewId, {
      verdict: 'Changes Requested',
      summary: 'Checkout breaks when the cart is empty.',
      tests: [
        { testCaseId, name: 'Empty cart checkout', origin: 'new', result: 'FAILED', url: 'x' },
        { testCaseId: newId(), name: 'Login', origin: 'existing', result: 'PASSED', url: 'x' },
      ],
    });
    await expect
      .poll(() => page.getByRole('heading', { name: 'Change review: Changes Requested' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(await page.getByText('Checkout breaks when the cart is empty.').count()).toBe(1);
    expect(await page.getByRole('link', { name: run.shortId }).getAttribute('href')).toBe(`/runs/${run.shortId}`);
    expect(await page.getByRole('link', { name: 'https://github.test/acme/shop/pull/42' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Empty cart checkout' }).getAttribute('href')).toBe(
      `/test-cases/${testCaseId}`,
    );
    const rows = await page.getByRole('table', { name: 'Tests of this review' }).getByRole('row').allTextContents();
    expect(rows.slice(1)).toEqual(['Empty cart checkoutnewFAILED', 'LoginexistingPASSED']);
  });

  it('shows the plan with its schedule and masked webhook, applications, configs with the secret masked, and live tunnel status', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/test-plans`);
    expect(await page.getByRole('link', { name: 'Their plan' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Nightly' }).click();
    await page.waitForURL(`${dash.url}/test-plans/${mine.plan}`);
    expect(await page.getByRole('cell', { name: '0 6 * * 1-5' }).count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'Weekday mornings' }).count()).toBe(1);
    expect(await page.getByText('hooks.chat.test #qa (on failure)').count()).toBe(1);
    expect(await page.content()).not.toContain('hunter2-shop');
    expect(await page.getByRole('cell', { name: 'Shop staging' }).count()).toBe(1);

    await page.goto(`${dash.url}/applications`);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Shop']);
    expect(await page.getByRole('cell', { name: mine.env }).count()).toBe(1);

    await page.goto(`${dash.url}/configs`);
    const configRows = await page.getByRole('row').allTextContents();
    expect(configRows.some((r) => r.startsWith('SHOP_PASSWORDsecret (set): ••••••'))).toBe(true);
    expect(configRows.some((r) => r.startsWith('SHOP_USERada@shop.test'))).toBe(true);
    const html = await page.content();
    expect(html).not.toContain('hunter2-shop');
    expect(html).not.toContain('GLOBEX');

    await page.goto(`${dash.url}/tunnels`);
    const status = page
      .getByRole('row', { name: new RegExp(mine.tunnel) })
      .getByRole('cell')
      .nth(1);
    expect(await status.textContent()).toBe('inactive');
    expect(await page.getByRole('row').count()).toBe(2);
    // An edge takes a connection: the open page shows the new status without a reload.
    const tunnel = await stack.db
      .selectFrom('remote_tunnels')
      .select('id')
      .where('runner_id', '=', mine.tunnel)
      .executeTakeFirstOrThrow();
    await insertConnection(stack.db, { id: newId(), tunnelId: tunnel.id, edgeUrl: 'ws://127.0.0.1:1/edge' });
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('degraded');
    expect(dash.blocked).toEqual([]);
  });

  it('shows the Git integration with its secrets only as stored, and the repositories whose merge requests are reviewed', async () => {
    const { page } = dash;
    await page.goto(`${dash.url}/git`);
    const rows = await page.getByRole('table').getByRole('row').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('token stored, webhook secret stored');
    expect(await page.getByRole('heading', { name: 'github: shop/web' }).count()).toBe(1);
    expect(await page.getByText('Preview → ').count()).toBe(1);
    expect(await page.getByText('http://127.0.0.1:3000/webhooks/github').count()).toBe(1);
    const html = await page.content();
    expect(html).not.toContain('hunter2-shop');
    expect(html).not.toContain('globex');
  });

  it('every page passes axe-core (no serious or critical violation) and loads in under 50 KB of HTML and JavaScript', async () => {
    const paths = [
      '/chats',
      `/chats/${mine.chat}`,
      `/chats/${mine.review}`,
      '/reviews',
      '/test-plans',
      `/test-plans/${mine.plan}`,
      '/applications',
      '/configs',
      '/tunnels',
      '/git',
    ];
    const sizes: Record<string, number> = {};
    for (const path of paths) {
      await dash.page.goto(`${dash.url}${path}`);
      await expectAccessible(dash.page);
      const bytes = await dash.transferredBytes(path);
      sizes[path] = bytes.total;
      expect(bytes.total, `${path}: ${JSON.stringify(bytes)}`).toBeLessThan(50_000);
    }
    console.log('dashboard page sizes (HTML+JS bytes transferred):', sizes);
    expect(dash.blocked).toEqual([]);
  });
});
