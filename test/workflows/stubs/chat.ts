// The workflow bundle of the chat workflows' tests: the real conversation and turn, with stand-ins for the turn's
// children (burnIn and planRun have their own tests). A burn-in of a test case whose id starts with `bad` fails.
import type { BurnInInput, BurnInResult } from '../../../workflows/burn-in-contract.js';
import type { PlanRunInput, PlanRunResult } from '../../../workflows/plan-run-contract.js';

export { chatConversation } from '../../../workflows/chatConversation.js';
export { chatTurn } from '../../../workflows/chatTurn.js';

export async function burnIn(input: BurnInInput): Promise<BurnInResult> {
  if (input.testCaseId.startsWith('bad'))
    return { status: 'FAILED', failureReason: 'no button named "Checkout"', stepCount: 0 };
  return { status: 'COMPLETED', stepCount: 4 };
}

export async function planRun(_input: PlanRunInput): Promise<PlanRunResult> {
  return { status: 'COMPLETED', result: 'PASSED', counts: { PASSED: 1 }, continuations: 0 };
}
