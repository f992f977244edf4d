import { mkdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { lockIssue, updateIssue } from '../../src/db/queries/issues.js';
import { insertLlmUsage } from '../../src/db/queries/llm-usage.js';
import { expectAccessible, openDashboard } from '../support/dashboard.js';
import { atEachScreenSize, expectWithinPageBudget } from '../support/page-checks.js';
import { serveAppForTests } from '../support/served-app.js';
import { writeFinishedRun, type PlannedTest } from '../support/finished-run.js';
import { insertRecordedTestCase, loginSteps } from '../support/recorded.js';
import { addApplication } from '../support/applications.js';
import { rowIdOf } from '../support/row-ids.js';

// Issue 36, trends: a plan of three tests with ten finished runs two days apart (test A failed in the 4th and 8th,
// test B passed only on a retry in the 6th), the project's LLM calls on two days, its quality issues. In real
// Chromium that reaches nothing but loopback, each chart says the numbers a person reads, marks results by pattern
// and sign as well as colour, and every page is axe-clean and within the budget at desktop and phone sizes.

const shots = 'test-results/dashboard';
const day = 86_400_000;
const failedRuns = [3, 7];
const flakyRun = 5;

describe('dashboard: trends', () => {
  const served = serveAppForTests('postgres', openDashboard);
  let planShortId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const { db } = served.api;
    const projectId = served.api.tenant.projectId;
    const applicationId = (await addApplication(served.api, 'Shop')).id;
    for (const name of ['A sign in', 'B search', 'C check out'])
      ids.push(await insertRecordedTestCase(db, { projectId, applicationId, name, steps: loginSteps }));
    const plan = await served.api.call('POST', '/v1/test-plans', { name: 'Nightly', testCaseIds: ids });
    expect(plan.status).toBe(201);
    planShortId = plan.body.shortId;
    const planId = await rowIdOf(db, 'test_plans', planShortId);
    // Run i takes 10 + i seconds: A for 2 s, B for 2 s, C to the end.
    for (let i = 0; i < 10; i++) {
      const tests: PlannedTest[] = [
        {
          testCaseId: ids[0]!,
          start: 0,
          end: 2,
          outcome: failedRuns.includes(i)
            ? { outcome: 'FAILED', resultTitle: 'Failed', error: 'no Sign in button', attempts: 2, flaky: false }
            : undefined,
        },
        {
          testCaseId: ids[1]!,
          start: 2,
          end: 4,
          outcome: i === flakyRun ? { outcome: 'PASSED', resultTitle: 'Passed', attempts: 2, flaky: true } : undefined,
        },
        { testCaseId: ids[2]!, start: 4, end: 10 + i },
      ];
      await writeFinishedRun(db, { projectId, planId, startedAt: new Date(Date.now() - (10 - i) * 2 * day), tests });
    }

    // LLM calls: one of 1,000 tokens today, one of 500 three days ago.
    const call = (at: Date, prompt: number, completion: number, cost: number) =>
      insertLlmUsage(db, {
        id: crypto.randomUUID(),
        project_id: projectId,
        purpose: 'burn_in',
        model: 'scripted',
        prompt_tokens: prompt,
        completion_tokens: completion,
        cached_tokens: 0,
        estimated: false,
        cost_usd: cost,
        test_case_id: ids[0]!,
        run_id: null,
        run_test_case_id: null,
        chat_id: null,
        chat_message_id: null,
        change_review_id: null,
        created_at: at,
      });
    await call(new Date(), 600, 400, 0.002);
    await call(new Date(Date.now() - 3 * day), 300, 200, 0.001);

    // Issues: two console errors and an accessibility violation open, a failed request resolved.
    for (const [key, kind, status] of [
      ['c1', 'console', 'open'],
      ['c2', 'console', 'open'],
      ['a1', 'a11y', 'open'],
      ['n1', 'network', 'resolved'],
    ] as const) {
      const row = await lockIssue(db, {
        id: crypto.randomUUID(),
        project_id: projectId,
        fingerprint: key,
        kind,
        severity: 'serious',
        title: `${kind} ${key}`,
        rule: null,
        page: '/shop',
        sample_url: 'http://127.0.0.1/shop',
      });
      await updateIssue(db, row.id, { status });
    }
    await served.front.signIn(served.api.tenant.token);
  }, 180_000);

  const chartOf = async (path: string) => {
    const { page } = served.front;
    await page.goto(`${served.front.url}${path}`);
    const figure = page.locator('figure.trend');
    return {
      caption: await figure.locator('figcaption').textContent(),
      label: await figure.locator('svg[role="img"]').getAttribute('aria-label'),
      bars: await figure
        .locator('svg[role="img"] g.tr-bar')
        .evaluateAll((gs) => gs.map((g) => g.getAttribute('class'))),
      signs: await figure.locator('svg[role="img"] text.tr-sign').allTextContents(),
      figures: await figure.locator('dl.trend-figures dd').allTextContents(),
      rows: await figure.locator('details tbody tr').count(),
      figure,
    };
  };

  it("draws a plan's last runs: the pass rate, flake rate and durations in words, results by pattern and sign", async () => {
    const chart = await chartOf(`/test-plans/${planShortId}`);
    const says = 'pass rate 80% over 10 runs, flake rate 10%; median duration 15 s, longest 19 s';
    expect(chart.caption).toBe(`Last 10 runs of this plan: ${says}.`);
    expect(chart.label).toBe(`Last 10 runs, oldest first: ${says}`);
    expect(chart.figures).toEqual(['80%', '10%', '15 s']);
    // Oldest first: the 4th and 8th failed, the 6th passed on a retry.
    expect(chart.bars).toEqual(
      Array.from(
        { length: 10 },
        (_, i) => `tr-bar o-${failedRuns.includes(i) ? 'failed' : i === flakyRun ? 'flaky' : 'passed'}`,
      ),
    );
    expect(chart.signs).toEqual(
      Array.from({ length: 10 }, (_, i) => (failedRuns.includes(i) ? '✕' : i === flakyRun ? 'R' : '')),
    );
    const fills = await chart.figure
      .locator('svg[role="img"] g.tr-bar rect')
      .evaluateAll((rs) => rs.map((r) => r.getAttribute('fill')));
    expect(fills.filter((f) => f === 'url(#tp-failed)')).toHaveLength(2);
    expect(fills.filter((f) => f === 'url(#tp-flaky)')).toHaveLength(1);
    // Each bar's title says the run, its result and how long it took; the table lists them newest first.
    const titles = await chart.figure.locator('svg[role="img"] g.tr-bar > title').allTextContents();
    expect(titles[3]).toMatch(/^run \w+, \d{4}-\d{2}-\d{2}: failed, 13 s$/);
    expect(chart.rows).toBe(10);
    await expectAccessible(served.front.page);
    expect(served.front.blocked).toEqual([]);
  });

  it("lists each plan's pass rate over its last runs", async () => {
    const { page } = served.front;
    await page.goto(`${served.front.url}/test-plans`);
    const row = page.getByRole('row', { name: /Nightly/ });
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('80% of 10');
  });

  it("draws a test's last runs: a failing test and a flaky one", async () => {
    const a = await chartOf(`/test-cases/${ids[0]}`);
    expect(a.caption).toBe(
      'Last 10 runs of this test: pass rate 80% over 10 runs, flake rate 0%; median duration 2.0 s, longest 2.0 s.',
    );
    expect(a.signs.filter((s) => s === '✕')).toHaveLength(2);
    const b = await chartOf(`/test-cases/${ids[1]}`);
    expect(b.caption).toBe(
      'Last 10 runs of this test: pass rate 100% over 10 runs, flake rate 10%; median duration 2.0 s, longest 2.0 s.',
    );
    expect(b.bars.filter((c) => c === 'tr-bar o-flaky')).toHaveLength(1);
    await expectAccessible(served.front.page);
  });

  it("draws the project's LLM tokens per day, with the cost per day in the table", async () => {
    const { page } = served.front;
    await page.goto(`${served.front.url}/usage`);
    const caption = await page.locator('figure.trend figcaption').textContent();
    expect(caption).toMatch(
      /^Tokens per day from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: 1,500 in all, at most 1,000 on a day\.$/,
    );
    expect(await page.locator('figure.trend g.tr-bar').count()).toBe(30);
    const today = new Date().toISOString().slice(0, 10);
    const before = new Date(Date.now() - 3 * day).toISOString().slice(0, 10);
    const rows = await page
      .getByRole('table', { name: 'Days with calls, newest first' })
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));
    expect(rows).toEqual([
      [today, '1', '1,000', '$0.0020'],
      [before, '1', '500', '$0.0010'],
    ]);
    expect(await page.locator(`figure.trend g.tr-bar title`).first().textContent()).toMatch(/: 0 tokens in 0 calls$/);
    await expectAccessible(page);
  });

  it('counts open issues by kind, each a link to them', async () => {
    const { page } = served.front;
    await page.goto(`${served.front.url}/issues`);
    const figure = page.locator('figure.kind-bars');
    expect(await figure.locator('figcaption').textContent()).toBe(
      '3 open issues: 2 console, 0 exception, 0 network, 1 a11y.',
    );
    await figure.getByRole('link', { name: 'console' }).click();
    await page.waitForURL(/\/issues\?status=open&kind=console$/);
    expect(await page.locator('table tbody tr').count()).toBe(2);
  });

  it('stays axe-clean and within the page budget; screenshots at desktop and phone sizes', async () => {
    const pages = [
      ['test-plans', '/test-plans'],
      ['test-plan-trend', `/test-plans/${planShortId}`],
      ['test-case-trend', `/test-cases/${ids[0]}`],
      ['usage', '/usage'],
      ['issues', '/issues'],
    ] as const;
    await atEachScreenSize(served.front, async (page, { label }) => {
      for (const [file, path] of pages) {
        await page.goto(`${served.front.url}${path}`);
        await expectAccessible(page);
        await page.screenshot({ path: `${shots}/${file}-${label}.png`, fullPage: true });
      }
    });
    await expectWithinPageBudget(
      served.front,
      pages.map(([, path]) => path),
    );
    expect(served.front.blocked).toEqual([]);
  }, 300_000);
});
