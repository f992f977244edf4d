// The burnIn workflow's contract (workflows/burnIn.ts, `burn-in:<testCaseId>`): its input and result, what the
// recording activities take, the signal a finished dependency sends and the progress query. No Node imports: it is
// bundled into the workflow sandbox, and the API signals a burn-in with these definitions without importing it.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { FailedReplay } from '../src/domain/recording-check.js';
import type { Step } from '../src/domain/steps.js';

export interface BurnInInput {
  projectId: string;
  testCaseId: string;
  /** Record on this URL instead of the application's environment: a change review burns new tests in on the preview. */
  environmentUrl?: string;
}

/** recordSteps: `resume` records again after a verifying replay failed, from its failing step on (issue 32). */
export interface RecordStepsInput extends BurnInInput {
  resume?: { steps: Step[]; failure: FailedReplay };
}

/** verifyRecording: the steps the agent recorded, replayed in a fresh browser before they are saved. */
export interface VerifyRecordingInput extends BurnInInput {
  steps: Step[];
}

export interface BurnInResult {
  status: 'COMPLETED' | 'FAILED';
  failureReason?: string;
  stepCount: number;
  /** COMPLETED: the parts of the goal the agent said it could not verify. */
  notCovered?: string[];
}

/** What a finished burn-in tells the burn-ins waiting for it. */
export interface DependencyRecorded {
  testCaseId: string;
  status: 'COMPLETED' | 'FAILED';
  /** Why it failed, for the dependent's own failure reason. */
  failureReason?: string;
}

/** Sent to a dependent's burn-in (`burn-in:<id>`) when one of its dependencies has recorded its steps or failed. */
export const dependencyRecordedSignal = defineSignal<[DependencyRecorded]>('dependencyRecorded');

export interface BurnInProgress {
  /** `reading-dependencies` until the stored statuses are read, so `waitingFor` is never empty by mistake. */
  phase: 'reading-dependencies' | 'waiting-for-dependencies' | 'recording' | 'verifying' | 'done';
  /** Dependencies not yet COMPLETED, while waiting. */
  waitingFor: string[];
}

/** Where a burn-in is: an operator (or a test) sees what it waits for without reading its history. */
export const burnInProgressQuery = defineQuery<BurnInProgress>('burnInProgress');
