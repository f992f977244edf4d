import { getTestCaseRecord, markGenerationFailed } from '../db/queries/test-cases.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { cancelRunningBurnIn } from '../temporal/lifecycle.js';
import type { ServiceContext } from './context.js';

export const cancelledBurnInReason = 'the burn-in was cancelled';

/**
 * Stops a test case's burn-in (POST /v1/test-cases/{id}/burn-in/cancel; the live view's stop button does the same
 * through `stopLive`). The workflow stores it FAILED with `cancelledBurnInReason` and tells its dependents; steps
 * the agent recorded before the stop are never saved, so the test case cannot be enabled. A GENERATING test case
 * whose workflow is gone (its start was lost) would stay GENERATING forever: it is marked FAILED here instead.
 */
export async function stopBurnIn(
  deps: ServiceContext<'temporal'>,
  projectId: string,
  testCaseId: string,
): Promise<{ status: 'CANCELLING' | 'FAILED' }> {
  const testCase = await getTestCaseRecord(deps.db, projectId, testCaseId);
  if (!testCase) throw new NotFoundError('Test case');
  if (testCase.generationStatus !== 'GENERATING')
    throw new ConflictError(`the burn-in already ended (${testCase.generationStatus})`);
  if (await cancelRunningBurnIn(deps.temporal, testCaseId)) return { status: 'CANCELLING' };
  await markGenerationFailed(deps.db, testCaseId, `${cancelledBurnInReason} (its workflow was no longer running)`);
  return { status: 'FAILED' };
}
