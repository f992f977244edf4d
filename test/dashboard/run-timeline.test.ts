import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import type { StepChange } from '../../src/domain/verdicts.js';
import { expectAccessible, openDashboard } from '../support/dashboard.js';
import { atEachScreenSize, expectWithinPageBudget } from '../support/page-checks.js';
import { serveAppForTests } from '../support/served-app.js';
import { writeFinishedRun, type PlannedTest } from '../support/finished-run.js';
import { insertRecordedTestCase, loginSteps } from '../support/recorded.js';
import { addApplication } from '../support/applications.js';
import { rowIdOf } from '../support/row-ids.js';

// Issue 36, "done when": a finished plan run of 200 tests with dependencies and one failure, opened in real
// Chromium that reaches nothing but loopback. The timeline has 200 bars, the failed test and its skipped dependents
// stand apart (their own pattern and word, after the failure in time), and the failure shows the recorded target
// beside what replay found, its screenshot, excerpt and trace. A second run with many failures groups them.

const shots = 'test-results/dashboard';

// 20 chains of 10 tests: "sign in" first, every chain's head waits for it, every other test for the one before it.
const chainOf = (i: number) => Math.floor(i / 10);
const name = (i: number) => (i === 0 ? 'sign in' : `chain ${chainOf(i)} test ${String(i).padStart(3, '0')}`);
const failing = 34;

const dragSteps: Step[] = [
  { action: 'navigate', value: '/shop/', description: 'Open the shop' },
  {
    action: 'drag',
    locator: "getByRole('listitem', { name: 'Coffee mug' })",
    target: { role: 'listitem', name: 'Coffee mug', text: 'Coffee mug €9.00' },
    dropTarget: { locator: "getByRole('region', { name: 'Cart' })", target: { role: 'region', name: 'Cart' } },
    description: 'Drag the mug into the cart',
  },
  { action: 'assert_visible', locator: "getByRole('link', { name: 'Cart (1)' })", description: 'One item in the cart' },
];
const changes: StepChange[] = [
  {
    stepIndex: 1,
    field: 'role',
    from: 'listitem',
    to: 'generic',
    severity: 'regression',
    summary: 'the listitem "Coffee mug" became a generic element',
  },
  {
    stepIndex: 1,
    field: 'name',
    from: 'Cart',
    to: 'Basket',
    severity: 'regression',
    summary: 'the region "Cart" (where it is dropped) is now named "Basket"',
  },
];

describe('dashboard: a run as a picture, a failure beside what was recorded', () => {
  const served = serveAppForTests('postgres', openDashboard);
  let big: string;
  let many: string;
  const expectedPath: string[] = [];
  const ids: string[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'proctor-trace-'));

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    const { db } = served.api;
    const projectId = served.api.tenant.projectId;
    const applicationId = (await addApplication(served.api, 'Shop')).id;
    for (let i = 0; i < 200; i++) {
      const waitFor = i === 0 ? [] : i % 10 === 0 ? [ids[0]!] : [ids[i - 1]!];
      ids.push(
        await insertRecordedTestCase(db, {
          projectId,
          applicationId,
          name: name(i),
          steps: i === failing ? dragSteps : loginSteps,
          waitFor,
        }),
      );
    }
    const plan = await served.api.call('POST', '/v1/test-plans', { name: 'Everything', testCaseIds: ids });
    expect(plan.status).toBe(201);
    const planId = await rowIdOf(db, 'test_plans', plan.body.shortId);

    // What a failed replay leaves: a screenshot and a trace, made by Chromium, in the blob store.
    await served.front.page.goto(`${served.front.url}/login`);
    const screenshotKey = `runs/fixture/screenshot.png`;
    await served.api.deps.blobs.put(screenshotKey, await served.front.page.screenshot(), 'image/png');
    const traced = await served.front.browser.newContext();
    await traced.tracing.start({ screenshots: true, snapshots: true });
    const tracedPage = await traced.newPage();
    await tracedPage.goto(`${served.front.url}/login`);
    await tracedPage.getByLabel('API token').fill('not a token');
    await traced.tracing.stop({ path: join(tmp, 'trace.zip') });
    await traced.close();
    const traceKey = `runs/fixture/trace.zip`;
    await served.api.deps.blobs.put(traceKey, readFileSync(join(tmp, 'trace.zip')), 'application/zip');

    // Each test starts when what it waits for ended; the failure's five dependents are skipped at its end.
    const ends: number[] = [];
    const planned: PlannedTest[] = [];
    for (let i = 0; i < 200; i++) {
      const after = i === 0 ? 0 : i % 10 === 0 ? ends[0]! : ends[i - 1]!;
      const start = after + 0.2;
      const end = start + 2 + ((i * 37) % 50) / 10 + i / 1000; // no two chains end together
      const skipped = chainOf(i) === chainOf(failing) && i > failing;
      ends.push(skipped ? ends[i - 1]! : end);
      planned.push({
        testCaseId: ids[i]!,
        start,
        end: skipped ? ends[i - 1]! + 0.1 : end,
        outcome:
          i === failing
            ? {
                outcome: 'FAILED',
                resultTitle: 'Failed',
                error: 'the dragged element is no longer a listitem, and its drop target is named "Basket"',
                failedStepIndex: 1,
                failureKind: 'changed-ui',
                changes,
                evidence: {
                  url: 'http://127.0.0.1/shop/',
                  pageExcerpt: 'Basket (0)\nCoffee mug €9.00',
                  httpStatus: 200,
                },
                screenshotKey,
                traceKey,
                attempts: 1,
                flaky: false,
              }
            : skipped
              ? 'skipped'
              : i === 57
                ? { outcome: 'PASSED', resultTitle: 'Passed', attempts: 2, flaky: true }
                : undefined,
      });
    }
    // The run ended with the last test to end; it waited for its chain back to sign in.
    const lastEnded = planned.reduce((a, t, i) => (t.outcome !== 'skipped' && t.end > planned[a]!.end ? i : a), 0);
    for (let i = lastEnded; ; i = i % 10 === 0 ? 0 : i - 1) {
      expectedPath.unshift(name(i));
      if (i === 0) break;
    }
    big = (
      await writeFinishedRun(db, { projectId, planId, startedAt: new Date(Date.now() - 3_600_000), tests: planned })
    ).shortId;

    // A run of the first 30 where 12 failed: 8 at the sign-in button (changed-ui), 4 where the page did not open.
    const manyPlanned: PlannedTest[] = ids.slice(0, 30).map((testCaseId, i) => ({
      testCaseId,
      start: i,
      end: i + 2,
      outcome:
        i >= 10 && i < 22
          ? {
              outcome: i < 18 ? 'FAILED' : 'ERROR',
              resultTitle: 'Failed',
              error: 'failed',
              failedStepIndex: i < 18 ? 3 : -1,
              failureKind: i < 18 ? 'changed-ui' : 'environment',
              attempts: 1,
              flaky: false,
            }
          : undefined,
    }));
    many = (
      await writeFinishedRun(db, { projectId, planId, startedAt: new Date(Date.now() - 1_800_000), tests: manyPlanned })
    ).shortId;
    await served.front.signIn(served.api.tenant.token);
  }, 180_000);

  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('draws 200 bars, the failed test and its skipped dependents apart, the critical path outlined', async () => {
    const { page } = served.front;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${served.front.url}/runs/${big}`);
    const figure = page.getByRole('figure');
    expect(await figure.locator('figcaption').textContent()).toMatch(
      /^200 tests over .+ \(one bar per test\): 193 passed · 1 flaky · 1 failed · 5 skipped\.$/,
    );
    const bars = figure.getByRole('img');
    expect(await bars.count()).toBe(200);

    const failed = figure.getByRole('img', { name: /: failed/ });
    expect(await failed.count()).toBe(1);
    expect(await failed.getAttribute('aria-label')).toMatch(/^chain 3 test 034: failed, /);
    const skipped = figure.getByRole('img', { name: /: skipped/ });
    expect(
      (await skipped.evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-label')!.split(':')[0]))).sort(),
    ).toEqual([35, 36, 37, 38, 39].map((i) => name(i)));
    // Apart by more than colour: each has its own pattern and its word beside it, the skipped after the failure.
    const fillOf = (g: typeof failed) => g.locator('rect').getAttribute('fill');
    expect(await fillOf(failed)).toBe('url(#tl-failed)');
    expect(await fillOf(skipped.first())).toBe('url(#tl-skipped)');
    expect(await fillOf(figure.getByRole('img', { name: /^sign in: passed/ }))).toBeNull();
    expect(await failed.locator('text.tl-note').textContent()).toBe('failed');
    expect(await skipped.locator('text.tl-note').allTextContents()).toEqual(Array(5).fill('skipped'));
    const failedBox = (await failed.locator('rect').boundingBox())!;
    for (const box of await skipped.locator('rect').evaluateAll((rs) => rs.map((r) => r.getBoundingClientRect().x)))
      expect(box).toBeGreaterThanOrEqual(failedBox.x + failedBox.width - 1);
    expect(await figure.getByRole('img', { name: /^chain 5 test 057: flaky after 2 attempts/ }).count()).toBe(1);

    // The critical path: sign in, then the chain that ended last, each test outlined, named in order under it.
    const path = await page.locator('p.critical-path').textContent();
    const names = path!.split(': ').slice(1).join(': ').split(' → ');
    expect(names).toEqual(expectedPath);
    const critical = await figure
      .locator('.tl-bar.critical')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-label')!.split(':')[0]));
    expect(critical.sort()).toEqual([...names].sort());
    expect(await figure.locator('path.tl-edge').count()).toBe(199);
    await expectAccessible(page);
    await page.screenshot({ path: `${shots}/run-200-1280x800.png` });
    expect(served.front.blocked).toEqual([]);
  });

  it('shows the failure beside what was recorded: both ends of the drag, the steps, screenshot, excerpt and trace', async () => {
    const { page } = served.front;
    await page.goto(`${served.front.url}/runs/${big}`);
    const card = page.getByRole('region', { name: /^chain 3 test 034/ });
    const rows = (table: string) =>
      card
        .getByRole('table', { name: table })
        .getByRole('row')
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent?.trim())));
    expect(await rows('The dragged element')).toEqual([
      ['Fact', 'Recorded', 'Found on replay'],
      ['role', 'listitem', 'differs: generic'],
      ['name', 'Coffee mug', 'as recorded'],
      ['text', 'Coffee mug €9.00', 'as recorded'],
      ['locator', "getByRole('listitem', { name: 'Coffee mug' })"],
    ]);
    expect(await rows('Where it is dropped')).toEqual([
      ['Fact', 'Recorded', 'Found on replay'],
      ['role', 'region', 'as recorded'],
      ['name', 'Cart', 'differs: Basket'],
      ['text', 'not recorded', 'as recorded'],
      ['locator', "getByRole('region', { name: 'Cart' })"],
    ]);
    const steps = card.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    expect(await steps.count()).toBe(3);
    expect(await card.locator('li[aria-current="step"]').textContent()).toMatch(
      /^failed here Drag the mug into the cart drag getByRole\('listitem', \{ name: 'Coffee mug' \}\) → getByRole\('region', \{ name: 'Cart' \}\)$/,
    );
    expect(await steps.nth(2).textContent()).toMatch(/^not run /);
    expect(await card.getByText('Basket (0)').count()).toBe(1);
    const screenshot = card.getByRole('img', { name: 'Screenshot of chain 3 test 034 where it stopped' });
    await screenshot.scrollIntoViewIfNeeded();
    await expect
      .poll(() => screenshot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(100);
    await card.screenshot({ path: `${shots}/failure-beside-recorded-1280.png` });
    await card.getByRole('link', { name: 'Open the trace of chain 3 test 034' }).click();
    await page.waitForURL(/\/trace-viewer\/index\.html\?trace=/);
    await page
      .getByText(/API token/)
      .first()
      .waitFor({ timeout: 30_000 });
    expect(served.front.blocked).toEqual([]);
  });

  it('groups many failures by kind and by failing step', async () => {
    const { page } = served.front;
    await page.goto(`${served.front.url}/runs/${many}`);
    const table = (caption: string) =>
      page
        .getByRole('table', { name: caption })
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent?.trim()).slice(0, 2)));
    expect(await page.getByRole('heading', { name: 'Failures grouped (12)' }).count()).toBe(1);
    expect(await table('By failure kind')).toEqual([
      ['changed-ui', '8'],
      ['environment', '4'],
    ]);
    expect(await table('By failing step')).toEqual([
      ["click getByRole('button', { name: 'Sign in' }): Sign in", '8'],
      ['the start page did not open', '4'],
    ]);
    await expectAccessible(page);
  });

  it('stays axe-clean and within the page budget; screenshots of the main pages at desktop and phone sizes', async () => {
    await atEachScreenSize(served.front, async (page, { label }) => {
      for (const [file, path] of [
        ['run-200', `/runs/${big}`],
        ['run-12-failures', `/runs/${many}`],
        ['runs', '/runs'],
        ['test-case', `/test-cases/${ids[failing]}`],
      ]) {
        await page.goto(`${served.front.url}${path}`);
        await expectAccessible(page);
        await page.screenshot({ path: `${shots}/${file}-${label}.png` });
      }
    });
    await expectWithinPageBudget(served.front, [`/runs/${big}`, `/runs/${many}`]);
    expect(served.front.blocked).toEqual([]);
  }, 400_000);
});
