// The workflow bundle of scheduledPlanRun's test: the real tick, with a stand-in for its child `planRun` (which has
// its own tests) so the tick's branches are checked without a run's activities. The stand-in ends a run whose short
// id says so as a failure, any other as a passed run.
import { ApplicationFailure } from '@temporalio/workflow';
import type { PlanRunInput, PlanRunResult } from '../../../workflows/plan-run-contract.js';

export { scheduledPlanRun } from '../../../workflows/scheduledPlanRun.js';

export async function planRun(input: PlanRunInput): Promise<PlanRunResult> {
  if (input.runShortId.includes('broken')) throw ApplicationFailure.nonRetryable(`run ${input.runShortId} broke`);
  return { status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 3 }, continuations: 0 };
}
