import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import type { RecordStepsResult } from '../../activities/burn-in.js';
import { burnInWatchActivities } from '../../activities/burn-in-dependencies.js';
import { signalDependencyRecorded, signalWithStart, startBurnIn } from '../../src/temporal/lifecycle.js';
import { searchAttributes } from '../../workflows/search-attributes-contract.js';
import {
  burnInProgressQuery,
  dependencyRecordedSignal,
  type BurnInInput,
  type DependencyRecorded,
  type RecordStepsInput,
  type VerifyRecordingInput,
} from '../../workflows/burn-in-contract.js';
import { failureTypes, workflowIds } from '../../workflows/shared.js';
import type { VerifyRecordingResult } from '../../activities/burn-in-verify.js';
import { todoSteps } from '../support/recorded.js';
import { useWorkflowHarness, recorder, until, type MockActivities, failureOf } from '../support/workflow-harness.js';
import { failureForGood } from '../support/activity-failures.js';

// burnIn on the time-skipping server: its one-hour wait for dependencies takes milliseconds, and every branch
// (dependencies done, failed, missing, late, never) is driven by what the mocked activities answer and which
// signals arrive.

const h = useWorkflowHarness();

const steps = todoSteps('milk');

/** The activities burnIn calls, answering "no dependencies, the agent records 4 steps" unless overridden. */
function activities(
  opts: {
    statuses?: Record<string, string>;
    exists?: boolean;
    agent?: (input: RecordStepsInput) => Promise<RecordStepsResult>;
    replay?: (input: VerifyRecordingInput) => Promise<VerifyRecordingResult>;
  } = {},
) {
  const recorded: RecordStepsResult = { status: 'COMPLETED', steps, llmCalls: 3, promptTokens: [100] };
  const mocks = {
    burnInDependencies: recorder(async (_input: BurnInInput) => ({
      exists: opts.exists ?? true,
      statuses: opts.statuses ?? {},
    })),
    recordSteps: recorder(async (input: RecordStepsInput) => (opts.agent ? opts.agent(input) : recorded)),
    verifyRecording: recorder(async (input: VerifyRecordingInput): Promise<VerifyRecordingResult> =>
      opts.replay ? opts.replay(input) : { status: 'PASSED', durationMs: 1200 },
    ),
    saveBurnInResult: recorder(async (_input: Parameters<NonNullable<MockActivities['saveBurnInResult']>>[0]) => {}),
    notifyDependents: recorder(async (_input: DependencyRecorded & { projectId: string }) => 0),
    // The real watch: it describes the dependencies' workflows on the test server; stored statuses from `statuses`.
    endedDependencyBurnIns: recorder(
      burnInWatchActivities(async (_projectId, ids) =>
        Object.fromEntries(ids.map((d) => [d, opts.statuses?.[d] ?? 'MISSING'])),
      ).endedDependencyBurnIns,
    ),
  };
  return mocks satisfies MockActivities;
}

const input = (testCaseId: string): BurnInInput => ({ projectId: 'project-1', testCaseId });

describe('burnIn', () => {
  it('without dependencies: records the agent steps, stores them and tells its dependents', async () => {
    const mocks = activities();
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('burnIn', [input(id)], workflowIds.burnIn(id))).result(),
    );

    expect(result).toEqual({ status: 'COMPLETED', stepCount: 4 });
    expect(mocks.recordSteps.calls).toEqual([[input(id)]]);
    // Saved only after the steps replayed in a fresh browser, with that replay.
    expect(mocks.verifyRecording.calls).toEqual([[{ ...input(id), steps }]]);
    expect(mocks.saveBurnInResult.calls).toEqual([
      [
        {
          testCaseId: id,
          status: 'COMPLETED',
          steps,
          recordingCheck: { status: 'PASSED', attempts: 1, durationMs: 1200, rerecordedAfter: [] },
        },
      ],
    ]);
    expect(mocks.notifyDependents.calls).toEqual([
      [{ projectId: 'project-1', testCaseId: id, status: 'COMPLETED', failureReason: undefined }],
    ]);
  });

  describe('the verifying replay (issue 32)', () => {
    const replayFails = (at: number, error: string): VerifyRecordingResult => ({
      status: 'FAILED',
      failedStepIndex: at,
      error,
      failureKind: 'element-missing',
      durationMs: 900,
    });
    const rerecorded = [
      ...steps.slice(0, 1),
      { action: 'assert_text' as const, value: 'again', description: 'recorded again' },
    ];

    it('a recording that does not replay is recorded again from its failing step, then replayed again: COMPLETED with the new steps', async () => {
      const replays = [
        replayFails(1, 'step 2 (scroll): "Select row 250" did not appear'),
        { status: 'PASSED' as const, durationMs: 800 },
      ];
      const mocks = activities({
        agent: async (i) =>
          i.resume
            ? { status: 'COMPLETED', steps: rerecorded, llmCalls: 2, promptTokens: [] }
            : { status: 'COMPLETED', steps, llmCalls: 3, promptTokens: [] },
        replay: async () => replays.shift()!,
      });
      const id = h.uniqueId('tc');
      const result = await h.withWorker(mocks, async (q) => (await q.start('burnIn', [input(id)])).result());

      expect(result).toEqual({ status: 'COMPLETED', stepCount: 2 });
      const failure = {
        failedStepIndex: 1,
        error: 'step 2 (scroll): "Select row 250" did not appear',
        failureKind: 'element-missing',
      };
      // The agent goes on from the failing step, the steps before it kept, told why.
      expect(mocks.recordSteps.calls).toEqual([
        [input(id)],
        [{ ...input(id), resume: { steps: steps.slice(0, 1), failure } }],
      ]);
      expect(mocks.verifyRecording.calls.map(([i]) => i.steps)).toEqual([steps, rerecorded]);
      expect(mocks.saveBurnInResult.calls).toEqual([
        [
          {
            testCaseId: id,
            status: 'COMPLETED',
            steps: rerecorded,
            recordingCheck: { status: 'PASSED', attempts: 2, durationMs: 800, rerecordedAfter: [failure] },
          },
        ],
      ]);
    });

    it('steps that still do not replay after two re-recordings: FAILED with the reason, the replay stored, nothing saved as steps', async () => {
      const mocks = activities({ replay: async () => replayFails(1, 'step 2 (click): click failed') });
      const id = h.uniqueId('tc');
      const result = await h.withWorker(mocks, async (q) => (await q.start('burnIn', [input(id)])).result());

      const failureReason = 'the recorded steps do not replay: step 2 (click): click failed';
      expect(result).toEqual({ status: 'FAILED', failureReason, stepCount: 0 });
      expect(mocks.recordSteps.calls).toHaveLength(3);
      expect(mocks.verifyRecording.calls).toHaveLength(3);
      const failure = { failedStepIndex: 1, error: 'step 2 (click): click failed', failureKind: 'element-missing' };
      expect(mocks.saveBurnInResult.calls).toEqual([
        [
          {
            testCaseId: id,
            status: 'FAILED',
            failureReason,
            recordingCheck: {
              status: 'FAILED',
              attempts: 3,
              durationMs: 900,
              ...failure,
              rerecordedAfter: [failure, failure],
            },
          },
        ],
      ]);
      expect(mocks.notifyDependents.calls[0]![0]).toMatchObject({ status: 'FAILED', failureReason });
    });

    it('the agent gives up while recording again: FAILED with its reason and the replay that sent it back', async () => {
      const mocks = activities({
        agent: async (i) =>
          i.resume
            ? {
                status: 'FAILED',
                steps: [],
                failureReason: 'the agent could not reach the goal: no row 250',
                llmCalls: 1,
                promptTokens: [],
              }
            : { status: 'COMPLETED', steps, llmCalls: 3, promptTokens: [] },
        replay: async () => replayFails(0, 'step 1 (click): click failed'),
      });
      const id = h.uniqueId('tc');
      const result = await h.withWorker(mocks, async (q) => (await q.start('burnIn', [input(id)])).result());

      expect(result).toEqual({
        status: 'FAILED',
        failureReason: 'the agent could not reach the goal: no row 250',
        stepCount: 0,
      });
      expect(mocks.saveBurnInResult.calls[0]![0]).toMatchObject({
        status: 'FAILED',
        recordingCheck: { status: 'FAILED', attempts: 1, failedStepIndex: 0 },
      });
    });
  });

  it("on a server without Proctor's search attributes (this one refuses a start naming them): started without them, and runs to its end", async () => {
    const mocks = activities();
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) => {
      // What the test server answers a start that names one: refused, which is why the starters ask first.
      await expect(
        h.client.workflow.start('burnIn', {
          taskQueue: q.taskQueue,
          workflowId: h.uniqueId('refused'),
          args: [input(id)],
          typedSearchAttributes: [{ key: searchAttributes.project, value: 'project-1' }],
        }),
      ).rejects.toThrow();
      await startBurnIn(q.target, input(id), 'Burn-in: milk', { application: 'app-1', trigger: 'API' });
      const handle = h.client.workflow.getHandle(workflowIds.burnIn(id));
      const ended = await handle.result();
      const description = await handle.describe();
      const names = description.typedSearchAttributes.getAll().map((p) => p.key.name);
      expect(names.filter((n) => n.startsWith('Proctor'))).toEqual([]);
      // Nor was the upsert's patch marked: it was never reached.
      expect(description.typedSearchAttributes.getAll().flatMap((p) => p.value)).not.toContain('search-attributes');
      expect(await description.staticSummary()).toBe('Burn-in: milk');
      return ended;
    });
    expect(result).toEqual({ status: 'COMPLETED', stepCount: 4 });
  });

  it('the agent does not reach the goal: FAILED with its reason, stored and told to dependents', async () => {
    const mocks = activities({
      agent: async () => ({
        status: 'FAILED',
        steps: [],
        failureReason: 'no button named Checkout',
        llmCalls: 5,
        promptTokens: [],
      }),
    });
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) => (await q.start('burnIn', [input(id)])).result());

    expect(result).toEqual({ status: 'FAILED', failureReason: 'no button named Checkout', stepCount: 0 });
    expect(mocks.saveBurnInResult.calls).toEqual([
      [{ testCaseId: id, status: 'FAILED', failureReason: 'no button named Checkout' }],
    ]);
    expect(mocks.notifyDependents.calls[0]![0]).toMatchObject({
      status: 'FAILED',
      failureReason: 'no button named Checkout',
    });
  });

  it('the agent activity fails for good (no LLM configured): FAILED with the innermost message, not retried', async () => {
    const mocks = activities({
      agent: async () => {
        throw failureForGood('no LLM configured: set OPENAI_API_KEY', failureTypes.llmNotConfigured);
      },
    });
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) => (await q.start('burnIn', [input(id)])).result());

    expect(result).toEqual({ status: 'FAILED', failureReason: 'no LLM configured: set OPENAI_API_KEY', stepCount: 0 });
    expect(mocks.recordSteps.calls).toHaveLength(1);
    expect(mocks.saveBurnInResult.calls[0]![0]).toMatchObject({
      status: 'FAILED',
      failureReason: 'no LLM configured: set OPENAI_API_KEY',
    });
  });

  it('a test case deleted before its burn-in ran: FAILED, nothing stored, nobody told', async () => {
    const mocks = activities({ exists: false });
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('burnIn', [input(h.uniqueId('tc'))])).result(),
    );

    expect(result).toEqual({ status: 'FAILED', failureReason: 'test case deleted', stepCount: 0 });
    expect(mocks.recordSteps.calls).toHaveLength(0);
    expect(mocks.saveBurnInResult.calls).toHaveLength(0);
    expect(mocks.notifyDependents.calls).toHaveLength(0);
  });

  it('dependencies already recorded when it starts: records at once, without waiting', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'COMPLETED', 'dep-b': 'COMPLETED' } });
    const { result, timers } = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('burnIn', [input(h.uniqueId('tc'))]);
      return { result: await handle.result(), timers: await timersOf(handle) };
    });

    expect(result.status).toBe('COMPLETED');
    expect(timers).toEqual([]);
    expect(mocks.recordSteps.calls).toHaveLength(1);
  });

  it('a dependency that already failed: FAILED naming it, the agent never runs', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'COMPLETED', 'dep-b': 'FAILED' } });
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('burnIn', [input(h.uniqueId('tc'))])).result(),
    );

    expect(result).toEqual({
      status: 'FAILED',
      failureReason: 'dependency dep-b failed to generate its steps',
      stepCount: 0,
    });
    expect(mocks.recordSteps.calls).toHaveLength(0);
    expect(mocks.notifyDependents.calls[0]![0]).toMatchObject({ status: 'FAILED' });
  });

  it('a dependency that no longer exists: FAILED naming it', async () => {
    const mocks = activities({ statuses: { 'dep-gone': 'MISSING' } });
    const result = await h.withWorker(mocks, async (q) =>
      (await q.start('burnIn', [input(h.uniqueId('tc'))])).result(),
    );

    expect(result).toEqual({ status: 'FAILED', failureReason: 'dependency dep-gone no longer exists', stepCount: 0 });
    expect(mocks.recordSteps.calls).toHaveLength(0);
  });

  it('waits for a dependency still generating until its signal arrives, then records (stored statuses read once; only its workflow is watched meanwhile)', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'GENERATING', 'dep-b': 'COMPLETED' } });
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('burnIn', [input(id)], workflowIds.burnIn(id));
      await until(async () => (await handle.query(burnInProgressQuery)).phase === 'waiting-for-dependencies');
      expect(await handle.query(burnInProgressQuery)).toEqual({
        phase: 'waiting-for-dependencies',
        waitingFor: ['dep-a'],
      });

      await h.env.sleep('50 minutes');
      expect((await handle.query(burnInProgressQuery)).phase).toBe('waiting-for-dependencies');
      expect(mocks.burnInDependencies.calls).toHaveLength(1); // read once, then only signals
      // Once a minute it asks whether dep-a's burn-in has ended without a word (it has not started: keep waiting).
      expect(mocks.endedDependencyBurnIns.calls.length).toBeGreaterThanOrEqual(49);
      expect(mocks.endedDependencyBurnIns.calls[0]).toEqual([{ projectId: 'project-1', testCaseIds: ['dep-a'] }]);
      expect(mocks.recordSteps.calls).toHaveLength(0);

      // As the dependency's own burn-in does once it has stored its steps.
      expect(await signalDependencyRecorded(q.target, [id], { testCaseId: 'dep-a', status: 'COMPLETED' })).toBe(1);
      return handle.result();
    });

    expect(result).toEqual({ status: 'COMPLETED', stepCount: 4 });
    expect(mocks.recordSteps.calls).toHaveLength(1);
    expect(mocks.burnInDependencies.calls).toHaveLength(1);
  });

  it('waits for every pending dependency, not just the first to signal', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'GENERATING', 'dep-b': 'GENERATING' } });
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('burnIn', [input(id)], workflowIds.burnIn(id));
      await handle.signal(dependencyRecordedSignal, { testCaseId: 'dep-b', status: 'COMPLETED' });
      await until(async () => (await handle.query(burnInProgressQuery)).waitingFor.join() === 'dep-a');
      expect(mocks.recordSteps.calls).toHaveLength(0);
      await handle.signal(dependencyRecordedSignal, { testCaseId: 'dep-a', status: 'COMPLETED' });
      return handle.result();
    });

    expect(result.status).toBe('COMPLETED');
  });

  it('a signal that arrives before the stored statuses are read is not lost (the read was stale)', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'GENERATING' } });
    const id = h.uniqueId('tc');
    const { result, timers } = await h.withWorker(mocks, async (q) => {
      // signal-with-start puts the signal in the workflow's first task, before its first activity answers.
      const handle = await signalWithStart(q.target, 'burnIn', {
        workflowId: workflowIds.burnIn(id),
        args: [input(id)],
        signal: dependencyRecordedSignal,
        signalArgs: [{ testCaseId: 'dep-a', status: 'COMPLETED' }],
      });
      return { result: await handle.result(), timers: await timersOf(handle) };
    });

    expect(result).toEqual({ status: 'COMPLETED', stepCount: 4 });
    expect(timers).toEqual([]);
  });

  it('a dependency that fails while it waits: FAILED with the dependency reason', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'GENERATING' } });
    const id = h.uniqueId('tc');
    const result = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('burnIn', [input(id)], workflowIds.burnIn(id));
      await signalDependencyRecorded(q.target, [id], {
        testCaseId: 'dep-a',
        status: 'FAILED',
        failureReason: 'the login page answered 500',
      });
      return handle.result();
    });

    expect(result).toEqual({
      status: 'FAILED',
      failureReason: 'dependency dep-a failed to generate its steps: the login page answered 500',
      stepCount: 0,
    });
    expect(mocks.recordSteps.calls).toHaveLength(0);
    expect(mocks.notifyDependents.calls[0]![0]).toMatchObject({ testCaseId: id, status: 'FAILED' });
  });

  it('no signal within the hour: FAILED naming what it still waits for', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'GENERATING', 'dep-b': 'COMPLETED' } });
    const { result, timers } = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('burnIn', [input(h.uniqueId('tc'))]);
      return { result: await handle.result(), timers: await timersOf(handle) };
    });

    expect(result).toEqual({
      status: 'FAILED',
      failureReason: 'timed out waiting for dependencies to record their steps (still waiting for dep-a)',
      stepCount: 0,
    });
    // The hour, in one-minute watches of the dependency's workflow (the last one what is left of the hour).
    expect(timers.length).toBeGreaterThanOrEqual(60);
    expect(timers.length).toBeLessThanOrEqual(61);
    expect(timers.every((t) => t.seconds <= 60 && t.fired)).toBe(true);
    expect(timers.reduce((sum, t) => sum + t.seconds, 0)).toBeGreaterThan(3500);
    expect(mocks.recordSteps.calls).toHaveLength(0);
    expect(mocks.burnInDependencies.calls).toHaveLength(1);
  });

  it('cancelled while waiting: stored as FAILED and its dependents are told, so none waits the hour', async () => {
    const mocks = activities({ statuses: { 'dep-a': 'GENERATING' } });
    const id = h.uniqueId('tc');
    const err = await h.withWorker(mocks, async (q) => {
      const handle = await q.start('burnIn', [input(id)], workflowIds.burnIn(id));
      await until(async () => (await handle.query(burnInProgressQuery)).phase === 'waiting-for-dependencies');
      await handle.cancel();
      return failureOf(handle);
    });

    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(mocks.saveBurnInResult.calls).toEqual([
      [{ testCaseId: id, status: 'FAILED', failureReason: 'the burn-in was cancelled' }],
    ]);
    expect(mocks.notifyDependents.calls[0]![0]).toMatchObject({
      testCaseId: id,
      status: 'FAILED',
      failureReason: 'the burn-in was cancelled',
    });
  });

  describe('a dependency whose burn-in is terminated (it cannot signal)', () => {
    const noop = () => {};
    /** The dependency waits on a root that never comes; the dependent waits on it. Stored statuses are `stored`. */
    function chainOfTwo() {
      const dependencyId = h.uniqueId('login');
      const dependentId = h.uniqueId('checkout');
      const stored: Record<string, string> = { [dependencyId]: 'GENERATING', root: 'GENERATING' };
      const waitsFor: Record<string, string[]> = { [dependencyId]: ['root'], [dependentId]: [dependencyId] };
      const mocks = {
        ...activities(),
        burnInDependencies: recorder(async (i: BurnInInput) => ({
          exists: true,
          statuses: Object.fromEntries((waitsFor[i.testCaseId] ?? []).map((d) => [d, stored[d]!])),
        })),
        endedDependencyBurnIns: recorder(
          burnInWatchActivities(async (_p, ids) => Object.fromEntries(ids.map((d) => [d, stored[d] ?? 'MISSING'])))
            .endedDependencyBurnIns,
        ),
      } satisfies MockActivities;
      /** Starts both, terminates the dependency once the dependent waits, and returns how the dependent ended. */
      const run = (beforeTerminate: () => void = noop) =>
        h.withWorker(mocks, async (q) => {
          const a = await q.start('burnIn', [input(dependencyId)], workflowIds.burnIn(dependencyId));
          const b = await q.start('burnIn', [input(dependentId)], workflowIds.burnIn(dependentId));
          await until(async () => (await b.query(burnInProgressQuery)).phase === 'waiting-for-dependencies');
          beforeTerminate();
          await a.terminate('an operator stopped it');
          const result = await b.result();
          const { startTime, closeTime } = await b.describe();
          // `RECORD_HISTORIES=1` keeps the watching wait's history for test/workflows/replay.test.ts.
          if (process.env.RECORD_HISTORIES && beforeTerminate === noop)
            writeFileSync(
              join(import.meta.dirname, 'histories', 'burnIn-dependency-terminated.json'),
              historyToJSON(await b.fetchHistory()),
            );
          return { result, waitedMs: closeTime!.getTime() - startTime.getTime() };
        });
      return { dependencyId, dependentId, stored, mocks, run };
    }

    it('the dependent fails within about a minute, naming the dependency and how its burn-in ended', async () => {
      const { dependencyId, dependentId, mocks, run } = chainOfTwo();
      const { result, waitedMs } = await run();

      const failureReason = `dependency ${dependencyId} did not record its steps: its burn-in was terminated`;
      expect(result).toEqual({ status: 'FAILED', failureReason, stepCount: 0 });
      expect(waitedMs).toBeLessThan(3 * 60_000); // not the hour
      expect(mocks.recordSteps.calls).toHaveLength(0);
      expect(mocks.saveBurnInResult.calls).toEqual([[{ testCaseId: dependentId, status: 'FAILED', failureReason }]]);
      // Its own dependents hear of it, so the failure travels down the chain.
      expect(mocks.notifyDependents.calls).toEqual([
        [{ projectId: 'project-1', testCaseId: dependentId, status: 'FAILED', failureReason }],
      ]);
    });

    it('terminated after it stored its steps but before it signalled: the dependent records, it does not fail', async () => {
      const { dependencyId, dependentId, stored, mocks, run } = chainOfTwo();
      const { result } = await run(() => void (stored[dependencyId] = 'COMPLETED'));

      expect(result).toEqual({ status: 'COMPLETED', stepCount: 4 });
      expect(mocks.recordSteps.calls.map(([i]) => i.testCaseId)).toEqual([dependentId]);
    });
  });

  it('a chain: the dependency burn-in signals its dependent through notifyDependents, which then records', async () => {
    const dependencyId = h.uniqueId('login');
    const dependentId = h.uniqueId('checkout');
    const stored = new Map<string, string>();
    let target: Parameters<typeof signalDependencyRecorded>[0] | undefined;
    const mocks = {
      ...activities(),
      burnInDependencies: recorder(async (i: BurnInInput) => ({
        exists: true,
        statuses: i.testCaseId === dependentId ? { [dependencyId]: stored.get(dependencyId) ?? 'GENERATING' } : {},
      })),
      recordSteps: recorder(async (_i: RecordStepsInput): Promise<RecordStepsResult> => ({
        status: 'COMPLETED',
        steps,
        llmCalls: 1,
        promptTokens: [],
      })),
      saveBurnInResult: recorder(
        async (i: { testCaseId: string; status: 'COMPLETED' | 'FAILED' }) => void stored.set(i.testCaseId, i.status),
      ),
      notifyDependents: recorder(async (i: DependencyRecorded & { projectId: string }) =>
        i.testCaseId === dependencyId
          ? signalDependencyRecorded(target!, [dependentId], { testCaseId: i.testCaseId, status: i.status })
          : 0,
      ),
    } satisfies MockActivities;

    const [dependency, dependent] = await h.withWorker(mocks, async (q) => {
      target = q.target;
      const b = await q.start('burnIn', [input(dependentId)], workflowIds.burnIn(dependentId));
      await until(async () => (await b.query(burnInProgressQuery)).phase === 'waiting-for-dependencies');
      const a = await q.start('burnIn', [input(dependencyId)], workflowIds.burnIn(dependencyId));
      // Awaiting a result lets the test server skip time, even past a running activity's heartbeat timeout:
      // poll instead, on the real clock, until both are done.
      await until(
        async () => (await a.describe()).status.name !== 'RUNNING' && (await b.describe()).status.name !== 'RUNNING',
      );
      return Promise.all([a.result(), b.result()]);
    });

    expect(dependency).toEqual({ status: 'COMPLETED', stepCount: 4 });
    expect(dependent).toEqual({ status: 'COMPLETED', stepCount: 4 });
    expect(mocks.notifyDependents.calls[0]![0]).toMatchObject({ testCaseId: dependencyId, status: 'COMPLETED' });
    expect(mocks.recordSteps.calls.map(([i]) => i.testCaseId)).toEqual([dependencyId, dependentId]);
  });
});

/** The timers a workflow started (its dependency wait), and whether each fired. */
async function timersOf(handle: WorkflowHandle): Promise<{ seconds: number; fired: boolean }[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const fired = new Set(
    events.flatMap((e) => (e.timerFiredEventAttributes ? [e.timerFiredEventAttributes.timerId] : [])),
  );
  return events.flatMap((e) => {
    const t = e.timerStartedEventAttributes;
    return t ? [{ seconds: Number(t.startToFireTimeout?.seconds ?? 0), fired: fired.has(t.timerId) }] : [];
  });
}
