import { CancellationScope, isCancellation, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { RecordStepsResult } from '../activities/burn-in.js';
import { browserActivity, dbActivity } from './activity-options.js';
import {
  burnInProgressQuery,
  dependencyRecordedSignal,
  type BurnInInput,
  type BurnInProgress,
  type BurnInResult,
  type DependencyRecorded,
} from './burn-in-contract.js';
import { innermostMessage } from './errors.js';
import { upsertProctorAttributes } from './search-attributes.js';
import { endedDependencyReason, waitForDependencies } from './burn-in-wait.js';
import { verifiedRecording } from './burn-in-verify.js';
import type { RecordingCheck } from '../src/domain/recording-check.js';

const db = proxyActivities<Activities>(dbActivity);
const browser = proxyActivities<Activities>(browserActivity);

/** How long a dependent waits for its dependencies to record steps before giving up. */
export const dependencyWaitLimitMs = 60 * 60 * 1000;

/**
 * Burn-in: waits until the test case's dependencies have recorded steps, lets the agent record its own steps
 * (GENERATING → COMPLETED), or stores a reason a user can read (→ FAILED). Either way it tells the burn-ins that
 * wait for this one.
 *
 * The wait is race-free without polling: the signal handler is set before anything else, the stored statuses are
 * read once (a dependency may be done already), and a dependency that finishes later signals this workflow after
 * storing its status, so one of the two always sees it. A cancelled burn-in (from the Temporal UI) is stored as
 * FAILED and tells its dependents, so none of them waits for it until the timeout. A terminated one cannot tell
 * anyone: the wait also watches the dependencies' workflows (burn-in-wait.ts) and fails naming the one that ended.
 */
export async function burnIn(input: BurnInInput): Promise<BurnInResult> {
  let phase: BurnInProgress['phase'] = 'reading-dependencies';
  /** Dependencies not COMPLETED when the burn-in read their stored status. */
  const pending = new Set<string>();
  const recorded = new Map<string, DependencyRecorded>();
  const remaining = () => [...pending].filter((id) => recorded.get(id)?.status !== 'COMPLETED');
  const failedDependency = () => [...recorded.values()].find((r) => pending.has(r.testCaseId) && r.status === 'FAILED');
  setHandler(dependencyRecordedSignal, (signal) => void recorded.set(signal.testCaseId, signal));
  setHandler(burnInProgressQuery, () => ({
    phase,
    waitingFor: phase === 'waiting-for-dependencies' ? remaining() : [],
  }));

  const finish = async (result: BurnInResult, save: () => Promise<void>): Promise<BurnInResult> => {
    await save();
    // Its result, for the Temporal UI's filters (`ProctorResult = 'FAILED'`).
    upsertProctorAttributes({ result: result.status });
    phase = 'done';
    await db.notifyDependents({
      projectId: input.projectId,
      testCaseId: input.testCaseId,
      status: result.status,
      failureReason: result.failureReason,
    });
    return result;
  };
  const fail = (failureReason: string, recordingCheck?: RecordingCheck) =>
    finish({ status: 'FAILED', failureReason, stepCount: 0 }, () =>
      db.saveBurnInResult({
        testCaseId: input.testCaseId,
        status: 'FAILED',
        failureReason,
        ...(recordingCheck && { recordingCheck }),
      }),
    );

  try {
    return await waitAndRecord();
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => fail('the burn-in was cancelled'));
    throw err;
  }

  async function waitAndRecord(): Promise<BurnInResult> {
    const { exists, statuses } = await db.burnInDependencies(input);
    if (!exists) {
      phase = 'done';
      return { status: 'FAILED', failureReason: 'test case deleted', stepCount: 0 };
    }
    const entries = Object.entries(statuses);
    const broken = entries.find(([, s]) => s === 'FAILED' || s === 'MISSING');
    if (broken)
      return fail(
        `dependency ${broken[0]} ${broken[1] === 'MISSING' ? 'no longer exists' : 'failed to generate its steps'}`,
      );

    for (const [id, status] of entries) if (status !== 'COMPLETED') pending.add(id);
    if (pending.size > 0) {
      phase = 'waiting-for-dependencies';
      const outcome = await waitForDependencies({
        projectId: input.projectId,
        done: () => remaining().length === 0 || failedDependency() !== undefined,
        pending: remaining,
        recordedMeanwhile: (id) => void recorded.set(id, { testCaseId: id, status: 'COMPLETED' }),
        limitMs: dependencyWaitLimitMs,
      });
      if (typeof outcome === 'object') return fail(endedDependencyReason(outcome));
      if (outcome === 'timed-out')
        return fail(
          `timed out waiting for dependencies to record their steps (still waiting for ${remaining().join(', ')})`,
        );
      const failed = failedDependency();
      if (failed)
        return fail(
          `dependency ${failed.testCaseId} failed to generate its steps${failed.failureReason ? `: ${failed.failureReason}` : ''}`,
        );
    }

    phase = 'recording';
    let agent: RecordStepsResult;
    try {
      agent = await browser.recordSteps(input);
    } catch (err) {
      if (isCancellation(err)) throw err;
      return fail(innermostMessage(err));
    }
    if (agent.status === 'FAILED') return fail(agent.failureReason ?? 'the agent did not reach the goal');
    let recordingCheck: RecordingCheck | undefined;
    // Histories recorded before the verifying replay existed saved the recording at once.
    if (patched('verify-recording')) {
      phase = 'verifying';
      const verified = await verifiedRecording(input, agent, browser);
      if (verified.status === 'FAILED') return fail(verified.failureReason, verified.check);
      ({ agent, check: recordingCheck } = verified);
    }
    // What the agent said it could not verify stays with the test: a reader (and a review) knows what it does not prove.
    const { steps, notCovered = [] } = agent;
    return finish({ status: 'COMPLETED', stepCount: steps.length, ...(notCovered.length > 0 && { notCovered }) }, () =>
      db.saveBurnInResult({
        testCaseId: input.testCaseId,
        status: 'COMPLETED',
        steps,
        ...(notCovered.length > 0 && { notCovered }),
        ...(recordingCheck && { recordingCheck }),
      }),
    );
  }
}
