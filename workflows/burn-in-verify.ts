import { isCancellation } from '@temporalio/workflow';
import type { RecordStepsResult } from '../activities/burn-in.js';
import type { VerifyRecordingResult } from '../activities/burn-in-verify.js';
import {
  maxRerecordings,
  notReplayingReason,
  type FailedReplay,
  type RecordingCheck,
} from '../src/domain/recording-check.js';
import { innermostMessage } from './errors.js';
import type { RecordStepsInput, VerifyRecordingInput } from './burn-in-contract.js';

/** The two browser activities the check calls (proxies in the workflow, so the Temporal UI shows each replay). */
export interface VerifyCalls {
  verifyRecording(input: VerifyRecordingInput): Promise<VerifyRecordingResult>;
  recordSteps(input: RecordStepsInput): Promise<RecordStepsResult>;
}

export type Verified =
  | { status: 'COMPLETED'; agent: RecordStepsResult; check: RecordingCheck }
  | { status: 'FAILED'; failureReason: string; check?: RecordingCheck };

/**
 * A recording is COMPLETED only once it replays (issue 32): the steps replay in a fresh browser; when that fails,
 * the agent records again from the failing step (the steps before it replayed and kept), at most maxRerecordings
 * times, and the new recording is replayed again. A failed call's effect on the burn-in's page (a scroll that
 * stopped short, a list left open) is not in the recording: this replay is where it shows, as on every run.
 */
export async function verifiedRecording(
  input: RecordStepsInput,
  first: RecordStepsResult,
  calls: VerifyCalls,
): Promise<Verified> {
  let agent = first;
  const rerecordedAfter: FailedReplay[] = [];
  for (let attempts = 1; ; attempts++) {
    const replay = await calls.verifyRecording({
      projectId: input.projectId,
      testCaseId: input.testCaseId,
      ...(input.environmentUrl && { environmentUrl: input.environmentUrl }),
      steps: agent.steps,
    });
    const check: RecordingCheck = { ...replay, attempts, rerecordedAfter: [...rerecordedAfter] };
    if (replay.status === 'PASSED') return { status: 'COMPLETED', agent, check };
    const failure: FailedReplay = {
      failedStepIndex: replay.failedStepIndex ?? -1,
      error: replay.error ?? 'unknown error',
      ...(replay.failureKind && { failureKind: replay.failureKind }),
    };
    // A start page that did not open is the environment's failure: recording again would not change it.
    if (attempts > maxRerecordings || failure.failedStepIndex < 0)
      return { status: 'FAILED', failureReason: notReplayingReason(failure), check };
    rerecordedAfter.push(failure);
    try {
      agent = await calls.recordSteps({
        ...input,
        resume: { steps: agent.steps.slice(0, failure.failedStepIndex), failure },
      });
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { status: 'FAILED', failureReason: innermostMessage(err), check };
    }
    if (agent.status === 'FAILED')
      return { status: 'FAILED', failureReason: agent.failureReason ?? 'the agent did not reach the goal', check };
  }
}
