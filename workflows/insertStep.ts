import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { browserActivity, dbActivity } from './activity-options.js';
import type { InsertStepInput, InsertStepResult } from './insert-step-contract.js';
import { innermostMessage } from './errors.js';

const db = proxyActivities<Activities>(dbActivity);
const browser = proxyActivities<Activities>(browserActivity);

/**
 * "Insert a step here": one browser session replays the test's steps before the position and lets the agent record
 * the described step in that page; the recorded steps are then spliced in and saved as a new steps version. Every
 * way it can end is written to the insertion (a person polls it): COMPLETED with the version, or FAILED with why
 * (the prefix did not replay, the agent could not record, the steps changed meanwhile, it was cancelled), and a
 * failure saves nothing.
 */
export async function insertStep(input: InsertStepInput): Promise<InsertStepResult> {
  const fail = (failureReason: string) => db.failStepInsertion({ insertionId: input.insertionId, failureReason });
  try {
    let recorded;
    try {
      recorded = await browser.recordInsertedSteps(input);
    } catch (err) {
      if (isCancellation(err)) throw err;
      return await fail(innermostMessage(err));
    }
    if (recorded.status === 'FAILED') return await fail(recorded.failureReason);
    return await db.saveStepInsertion({ insertionId: input.insertionId, steps: recorded.steps });
  } catch (err) {
    if (isCancellation(err))
      await CancellationScope.nonCancellable(() => fail('the insertion was cancelled: nothing was saved'));
    throw err;
  }
}
