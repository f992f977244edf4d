import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { SystemCheckInput, SystemCheckResult } from './system-check-contract.js';

const { checkDatabase } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** A round trip through Temporal, the worker and the database: what `proctor dev` and the boot test use to prove the stack works. */
export async function systemCheck(input: SystemCheckInput): Promise<SystemCheckResult> {
  const { ok, workerIdentity } = await checkDatabase();
  return { nonce: input.nonce, databaseOk: ok, workerIdentity };
}
