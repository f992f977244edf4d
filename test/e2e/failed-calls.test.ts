import { writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../workflows/shared.js';
import { createRouter, refOf, tool, type AgentMove } from '../support/agent-script.js';
import type { DashboardBrowser } from '../support/dashboard.js';
import { failedCallFlows } from '../support/failed-call-flows.js';
import { burnInFlows } from '../support/burn-in-flows.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { waitFor } from '../support/net.js';
import { exportedSpec, expectSpecPasses } from '../support/playwright-runner.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import type { Stack } from '../support/worker-context.js';
import { useModelStack } from '../support/model-stack.js';

// Issue 32, item 3: a matrix of agent calls that fail yet change the page (a scroll that stopped short, an
// autocomplete typed into but not chosen, a click that opened a menu and failed), each followed by a call that
// succeeds on the state it left. Each burn-in ends COMPLETED with steps that replay (the verifying replay caught
// the problem and the agent recorded again), or FAILED with the reason; no COMPLETED test fails its first replay
// through the normal run path. A step inserted into a test is verified the same way. And the 300-row list box
// records, replays and exports from the top.
describe('failed calls that change the page, on the real stack', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let dash: DashboardBrowser;
  let ids: Map<string, string>;
  let generated: Map<string, any>;
  const router = createRouter();

  const rig = useModelStack({ concurrency: 2, dashboard: true });
  beforeAll(async () => {
    ({ fixture, llm, stack, dash } = rig);
    ({ ids, generated } = await burnInFlows(stack, llm, fixture.url, failedCallFlows, { timeoutMs: 240_000, router }));
  }, 300_000);

  for (const flow of failedCallFlows) {
    const { outcome } = flow;
    if (outcome.status === 'COMPLETED') {
      it(`${flow.name}: COMPLETED after ${outcome.attempts} verifying replay(s), and its first run passes`, async () => {
        const testCase = generated.get(flow.name);
        expect(testCase.failureReason).toBeNull();
        expect(testCase.generationStatus).toBe('COMPLETED');
        expect(testCase.steps.steps.map((s: { action: string }) => s.action)).toEqual(outcome.actions);
        // The verifying replay is stored with the test case: a reader sees the steps replayed before they were saved.
        expect(testCase.recordingCheck).toMatchObject({
          status: 'PASSED',
          attempts: outcome.attempts,
          stepsVersion: testCase.steps.version,
        });
        expect(testCase.recordingCheck.rerecordedAfter).toHaveLength(outcome.attempts - 1);

        const before = llm.requests.length;
        const result = await stack.activities.executeTest({
          projectId: stack.tenant.projectId,
          testCaseId: ids.get(flow.name)!,
          artifactPrefix: `runs/failed-calls/${ids.get(flow.name)}`,
          heal: false,
        });
        expect(result.error).toBeUndefined();
        expect(result.status).toBe('PASSED');
        expect(llm.requests.length).toBe(before);
      }, 60_000);
    } else {
      it(`${flow.name}: FAILED, saying the recorded steps do not replay`, () => {
        const testCase = generated.get(flow.name);
        expect(testCase.generationStatus).toBe('FAILED');
        expect(testCase.failureReason).toMatch(outcome.reason);
        expect(testCase.steps).toBeNull();
        expect(testCase.recordingCheck).toMatchObject({ status: 'FAILED', attempts: 3, failedStepIndex: 0 });
        expect(testCase.recordingCheck.rerecordedAfter).toHaveLength(2);
      });
    }
  }

  it('each verifying replay and each re-recording is an activity of the burn-in workflow (the Temporal UI shows them)', async () => {
    const id = ids.get('A scroll that stopped short, then caught by the replay')!;
    const history = await (await stack.temporal.get()).workflow.getHandle(workflowIds.burnIn(id)).fetchHistory();
    const activities = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    expect(activities).toEqual([
      'burnInDependencies',
      'recordSteps',
      'verifyRecording',
      'recordSteps',
      'verifyRecording',
      'saveBurnInResult',
      'notifyDependents',
    ]);
    // `RECORD_HISTORIES=1` refreshes the history test/workflows/replay.test.ts replays for this path.
    if (process.env.RECORD_HISTORIES)
      writeFileSync('test/workflows/histories/burnIn-verified-recording.json', historyToJSON(history));
  });

  it('the test case page says the steps were verified, and after which failed replay the agent recorded again', async () => {
    await dash.signIn(stack.tenant.token);
    await dash.page.goto(`${dash.url}/test-cases/${ids.get('A scroll that stopped short, then caught by the replay')}`);
    const note = await dash.page.locator('#recording-check').innerText();
    expect(note).toMatch(
      /^Verified before saving: version 1 replayed in a fresh browser, with no model call, in \d+\.\d s\./,
    );
    expect(note).toContain('The agent recorded again after: step 1 failed (step 1 (click)');
    await dash.page.goto(`${dash.url}/test-cases/${ids.get('A scroll that stopped short, every time')}`);
    await expect(dash.page.locator('#recording-check').innerText()).resolves.toMatch(
      /^The recorded steps did not replay in a fresh browser \(3 attempts\)\. The agent recorded again after: step 1 failed/,
    );
  }, 60_000);

  describe('a step inserted into a test is verified the same way', () => {
    const feedTest = 'A scroll that stopped short, then caught by the replay';
    const insert = async (at: number, description: string, moves: AgentMove[]) => {
      router.add(description, moves);
      llm.enqueue(...moves.map(() => router.reply));
      const asked = await stack.call('POST', `/v1/test-cases/${ids.get(feedTest)}/steps/insert`, { at, description });
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      let ended: any;
      await waitFor(
        async () =>
          (ended = (await stack.call('GET', `/v1/test-cases/${ids.get(feedTest)}/steps/insertions/${asked.body.id}`))
            .body).status !== 'RUNNING',
        90_000,
        'the insertion to finish',
      );
      return ended;
    };

    it('a step recorded on what a failed scroll loaded does not replay: FAILED, nothing saved', async () => {
      const ended = await insert(0, 'Open Entry 58 first', [
        (r) =>
          tool('scroll', {
            ref: refOf(r, 'region "Activity feed"'),
            direction: 'down',
            untilText: 'Entry 99',
            description: 'Scroll the feed to Entry 99',
          }),
        () => tool('find', { text: 'Entry 58' }),
        (r) => tool('click', { ref: refOf(r, 'button "Entry 58"'), description: 'Open Entry 58' }),
        () => tool('done', { summary: 'Opened' }),
      ]);
      expect(ended).toMatchObject({ status: 'FAILED', version: null });
      expect(ended.failureReason).toMatch(/^the recorded step does not replay, so nothing was saved: step 1 \(click\)/);
      expect((await stack.call('GET', `/v1/test-cases/${ids.get(feedTest)}`)).body.steps.steps).toHaveLength(3);
    }, 120_000);

    it('a step that replays is saved as a new version', async () => {
      const ended = await insert(3, 'Check that Entry 55 is still open', [
        () => tool('assert_text', { text: 'Opened Entry 55', description: 'Entry 55 is still open' }),
        () => tool('done', { summary: 'Checked' }),
      ]);
      expect(ended).toMatchObject({ status: 'COMPLETED', version: 2 });
      expect(
        (await stack.call('GET', `/v1/test-cases/${ids.get(feedTest)}`)).body.steps.steps.map(
          (s: { action: string }) => s.action,
        ),
      ).toEqual(['scroll', 'click', 'assert_text', 'assert_text']);
    }, 120_000);
  });

  it('the 300-row list box: recorded as one scroll to row 250 from the top, and its exported spec passes', async () => {
    const name = 'Row 250 of a 300-row list box';
    const [scroll] = generated.get(name).steps.steps;
    expect(scroll).toMatchObject({ action: 'scroll', scroll: { direction: 'down', untilText: 'Row 250' } });
    await expectSpecPasses(await exportedSpec(stack, ids.get(name)!));
  }, 90_000);
});
