import { beforeAll, describe, expect, it } from 'vitest';
import { addProfilePlan } from '../support/applications.js';
import { startFakeGitHub } from '../support/fake-github.js';
import { startFakeGitLab } from '../support/fake-gitlab.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useModelStack } from '../support/model-stack.js';
import { allQualityProblems } from '../support/fixtures/quality.js';
import { waitForGeneration, waitForRun, type Stack } from '../support/worker-context.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import { refOf, tool } from '../support/agent-script.js';

// Quality signals on the real stack (Postgres, Temporal, Chromium, the fixture profile page): a replay collects an
// uncaught exception, a failing XHR, an unlabeled input and low-contrast text; runs fold them into project issues,
// one per problem, and clean runs resolve them.

describe('quality signals become project issues', () => {
  let fixture: FixtureApps;
  let stack: Stack;
  let llm: ScriptedLlm;
  let appShortId: string;
  let planShortId: string;
  let testCaseId: string;

  const rig = useModelStack();
  beforeAll(async () => {
    ({ fixture, llm, stack } = rig);
    ({ appShortId, testCaseId, planShortId } = await addProfilePlan(stack, `${fixture.url}/quality/`));
  }, 120_000);

  /** One run of the plan to its end; its only test's row. */
  const run = async () => {
    const started = await stack.call('POST', '/v1/run', { testPlanShortId: planShortId });
    expect(started.status).toBe(200);
    const done = await waitForRun(stack, started.body.run.shortId);
    expect(done).toMatchObject({ status: 'COMPLETED', result: 'PASSED' });
    return done.runTestCases[0];
  };
  const issues = async (query = '') => (await stack.call('GET', `/v1/issues${query}`)).body;

  it('three runs of a page with four problems: exactly four issues, three occurrences each, counts on each run test case', async () => {
    fixture.quality.setQualityProblems(allQualityProblems);
    for (let i = 0; i < 3; i++) {
      // The test passes: the problems do not stop a user from saving, they are reported beside the result.
      expect((await run()).signalCounts).toEqual({ console: 0, exception: 1, network: 1, a11y: 2 });
    }

    const all = await issues();
    expect(all.total).toBe(4);
    const byKind = (kind: string, rule?: string) =>
      all.issues.find((i: any) => i.kind === kind && (rule === undefined || i.rule === rule));
    expect(byKind('exception')).toMatchObject({
      severity: 'serious',
      title: "TypeError: Cannot read properties of null (reading 'name')",
      page: '/quality/',
    });
    expect(byKind('network')).toMatchObject({
      severity: 'serious',
      rule: '500',
      title: expect.stringContaining('/quality/api/users/4821/stats answered HTTP 500'),
    });
    expect(byKind('a11y', 'label')).toMatchObject({ severity: 'critical', title: expect.stringContaining('#email') });
    expect(byKind('a11y', 'color-contrast')).toMatchObject({ severity: 'serious' });
    for (const issue of all.issues)
      expect(issue).toMatchObject({
        status: 'open',
        occurrences: 3,
        pages: ['/quality/'],
        testCaseIds: [testCaseId],
        cleanRuns: 0,
      });

    expect((await issues('?kind=a11y')).total).toBe(2);
    expect((await issues('?severity=critical')).issues.map((i: any) => i.rule)).toEqual(['label']);
    expect((await issues('?limit=1&offset=1')).issues).toHaveLength(1);
    expect(await stack.call('GET', '/v1/issues?kind=visual')).toMatchObject({
      status: 400,
      body: { message: expect.any(String) },
    });
    const one = await stack.call('GET', `/v1/issues/${byKind('a11y', 'label').id}`);
    expect(one.body).toEqual(byKind('a11y', 'label'));
    expect((await stack.call('GET', '/v1/issues/3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b')).status).toBe(404);
    expect((await stack.call('GET', '/v1/issues/not-a-uuid')).status).toBe(400);
    // The signals themselves are kept with the run test case, with the step they followed (-1: the start page).
    const signals = await stack.db
      .selectFrom('quality_signals')
      .select(['kind', 'step_index', 'page'])
      .where('test_case_id', '=', testCaseId)
      .execute();
    expect(signals).toHaveLength(12);
    expect(new Set(signals.map((s) => `${s.step_index} ${s.page}`))).toEqual(new Set(['-1 /quality/']));
  }, 180_000);

  it("after the page is fixed, the issues resolve after the project setting's number of clean runs; a new sighting reopens one, an ignored one stays ignored", async () => {
    expect((await stack.call('PATCH', '/v1/project/settings', { issueResolveAfterRuns: 2 })).body).toMatchObject({
      issueResolveAfterRuns: 2,
    });
    expect((await stack.call('PATCH', '/v1/project/settings', { issueResolveAfterRuns: 0 })).status).toBe(400);
    fixture.quality.setQualityProblems([]);

    expect((await run()).signalCounts).toEqual({ console: 0, exception: 0, network: 0, a11y: 0 });
    expect((await issues('?status=open')).issues.map((i: any) => i.cleanRuns)).toEqual([1, 1, 1, 1]);
    await run();
    const resolved = await issues('?status=resolved');
    expect(resolved.total).toBe(4);
    expect(resolved.issues.every((i: any) => i.resolvedAt !== null)).toBe(true);

    const contrast = resolved.issues.find((i: any) => i.rule === 'color-contrast');
    expect((await stack.call('PATCH', `/v1/issues/${contrast.id}`, { status: 'ignored' })).body).toMatchObject({
      status: 'ignored',
    });
    expect((await stack.call('PATCH', `/v1/issues/${contrast.id}`, { status: 'gone' })).status).toBe(400);
    fixture.quality.setQualityProblems(['exception', 'contrast']);
    await run();
    const now = await issues();
    expect(now.total).toBe(4);
    expect(now.issues.find((i: any) => i.kind === 'exception')).toMatchObject({
      status: 'open',
      occurrences: 4,
      resolvedAt: null,
    });
    expect(now.issues.find((i: any) => i.rule === 'color-contrast')).toMatchObject({
      status: 'ignored',
      occurrences: 4,
    });
    expect(now.issues.find((i: any) => i.rule === 'label')).toMatchObject({ status: 'resolved', occurrences: 3 });
  }, 180_000);

  it('an issue is filed in GitHub and in GitLab once each: exporting again finds it by its hidden fingerprint marker', async () => {
    const exception = (await issues('?kind=exception')).issues[0];
    const exportIt = (body: unknown) => stack.call('POST', `/v1/issues/${exception.id}/export`, body);
    expect(await exportIt({ repository: 'acme/profile' })).toMatchObject({
      status: 404,
      body: { message: 'Git integration not found: connect one with POST /v1/git-integrations first' },
    });
    expect((await exportIt({ repository: 'not a repository' })).status).toBe(400);
    expect(
      (
        await stack.call('POST', '/v1/issues/3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b/export', {
          repository: 'acme/profile',
        })
      ).status,
    ).toBe(404);

    const [github, gitlab] = await Promise.all([startFakeGitHub(), startFakeGitLab()]);
    try {
      github.addToken('ghp_issues', ['acme/profile']);
      expect(
        (
          await stack.call('POST', '/v1/git-integrations', {
            provider: 'github',
            auth: 'token',
            token: 'ghp_issues',
            baseUrl: github.url,
          })
        ).status,
      ).toBe(201);
      const first = await exportIt({ repository: 'acme/profile' });
      expect(first).toMatchObject({
        status: 200,
        body: { created: true, url: 'https://github.example/acme/profile/issues/1' },
      });
      expect(await exportIt({ repository: 'acme/profile' })).toMatchObject({
        status: 200,
        body: { created: false, url: first.body.url },
      });
      const filed = github.issues('acme/profile');
      expect(filed).toHaveLength(1);
      expect(filed[0]!.title).toBe("[Proctor] TypeError: Cannot read properties of null (reading 'name')");
      expect(filed[0]!.body).toMatch(/<!-- proctor-issue:[0-9a-f]{32} -->$/);
      expect((await stack.call('GET', `/v1/issues/${exception.id}`)).body.exported).toEqual({
        provider: 'github',
        url: first.body.url,
      });

      gitlab.addProject('acme/web/profile');
      gitlab.addToken('glpat-issues', ['acme/web/profile']);
      expect(
        (
          await stack.call('POST', '/v1/git-integrations', {
            provider: 'gitlab',
            token: 'glpat-issues',
            baseUrl: gitlab.url,
          })
        ).status,
      ).toBe(201);
      const onGitLab = await exportIt({ repository: 'acme/web/profile', provider: 'gitlab' });
      expect(onGitLab).toMatchObject({
        status: 200,
        body: { created: true, url: 'https://gitlab.example/acme/web/profile/-/issues/1' },
      });
      expect(await exportIt({ repository: 'acme/web/profile', provider: 'gitlab' })).toMatchObject({
        body: { created: false, url: onGitLab.body.url },
      });
      expect(gitlab.issues('acme/web/profile')).toHaveLength(1);
      expect(gitlab.issues('acme/web/profile')[0]!.description).toContain(filed[0]!.body.slice(-60));
    } finally {
      await Promise.all([github.close(), gitlab.close()]);
    }
  }, 120_000);

  it("a burn-in's signals become issues too: the problems it meets reopen theirs and name the new test", async () => {
    fixture.quality.setQualityProblems(['xhr', 'label']);
    const before = await issues();
    const goal = 'Save the profile with an email';
    llm.enqueue(
      (r) => tool('fill', { ref: refOf(r, /textbox/), value: 'ada@example.com', description: 'Type the email' }),
      (r) => tool('click', { ref: refOf(r, 'button "Save"'), description: 'Save' }),
      () => tool('done', { summary: 'Profile saved' }),
    );
    const created = await stack.call('POST', '/v1/test-cases', {
      name: 'Save the profile (burn-in)',
      goal,
      applicationShortId: appShortId,
    });
    expect(created.status).toBe(200);
    const burnedIn = created.body.testCase.id;
    expect(await waitForGeneration(stack, burnedIn)).toMatchObject({ generationStatus: 'COMPLETED' });

    const after = await issues();
    expect(after.total).toBe(before.total);
    const find = (list: any, kind: string) => list.issues.find((i: any) => i.kind === kind);
    for (const kind of ['network', 'a11y'] as const) {
      const was = kind === 'a11y' ? before.issues.find((i: any) => i.rule === 'label') : find(before, kind);
      const now = after.issues.find((i: any) => i.id === was.id);
      expect(now).toMatchObject({
        status: 'open',
        occurrences: was.occurrences + 1,
        testCaseIds: [testCaseId, burnedIn],
      });
    }
    // What the burn-in did not meet is untouched: a burn-in is exploration, never a clean run.
    expect(find(after, 'exception')).toEqual(find(before, 'exception'));
    const kept = await stack.db
      .selectFrom('quality_signals')
      .select(['kind', 'burn_in', 'run_test_case_id'])
      .where('test_case_id', '=', burnedIn)
      .execute();
    expect(kept.map((k) => k.kind).sort()).toEqual(['a11y', 'network']);
    expect(kept.every((k) => k.run_test_case_id === null && k.burn_in?.includes('/'))).toBe(true);
  }, 120_000);
});
