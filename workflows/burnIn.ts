import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { browserActivity, dbActivity } from './activity-options.js';
import type { BurnInInput, BurnInResult } from './shared.js';
import { innermostMessage } from './errors.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);
const browser = proxyActivities<Activities>(browserActivity);

/** How long a dependent waits for its dependencies to record steps before giving up. */
const dependencyWaitLimitMs = 60 * 60 * 1000;
const dependencyPollMs = 3_000;

/**
 * Burn-in: waits until the test case's dependencies have recorded steps, lets the agent record its own steps
 * (GENERATING → COMPLETED), or stores a reason a user can read (→ FAILED).
 */
export async function burnIn(input: BurnInInput): Promise<BurnInResult> {
  const fail = async (failureReason: string): Promise<BurnInResult> => {
    await db.saveBurnInResult({ testCaseId: input.testCaseId, status: 'FAILED', failureReason });
    return { status: 'FAILED', failureReason, stepCount: 0 };
  };

  const started = Date.now();
  for (;;) {
    const { exists, statuses } = await db.burnInDependencies(input);
    if (!exists) return { status: 'FAILED', failureReason: 'test case deleted', stepCount: 0 };
    const entries = Object.entries(statuses);
    const broken = entries.find(([, s]) => s === 'FAILED' || s === 'MISSING');
    if (broken) return fail(`dependency ${broken[0]} ${broken[1] === 'MISSING' ? 'no longer exists' : 'failed to generate its steps'}`);
    if (entries.every(([, s]) => s === 'COMPLETED')) break;
    if (Date.now() - started > dependencyWaitLimitMs) return fail('timed out waiting for dependencies to record their steps');
    await sleep(dependencyPollMs);
  }

  let recorded;
  try {
    recorded = await browser.recordSteps(input);
  } catch (err) {
    return fail(innermostMessage(err));
  }
  if (recorded.status === 'FAILED') return fail(recorded.failureReason ?? 'the agent did not reach the goal');
  await db.saveBurnInResult({ testCaseId: input.testCaseId, status: 'COMPLETED', steps: recorded.steps });
  return { status: 'COMPLETED', stepCount: recorded.steps.length };
}
