// The workflow bundle of changeReview's test: the real review, with stand-ins for its children (burnIn, planRun,
// chatTurn have their own tests) so the review's branches are checked by what its activities answer. A burn-in not
// on the preview URL the mocks give, or of a test case whose id starts with `bad`, fails; a run whose short id
// contains `broken` fails as a workflow; a follow-up turn ends its reply through the same activity the real turn
// uses, so a test sees it was answered.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities/index.js';
import type { BurnInInput, BurnInResult } from '../../../workflows/burn-in-contract.js';
import type { ChatTurnInput, ChatTurnResult } from '../../../workflows/chat-contract.js';
import type { PlanRunInput, PlanRunResult } from '../../../workflows/plan-run-contract.js';

export { changeReview } from '../../../workflows/changeReview.js';

const db = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds' });

export async function burnIn(input: BurnInInput): Promise<BurnInResult> {
  if (input.environmentUrl !== 'https://preview.shop.test')
    return {
      status: 'FAILED',
      failureReason: `burned in on ${input.environmentUrl ?? 'the default environment'}, not the preview`,
      stepCount: 0,
    };
  if (input.testCaseId.startsWith('bad'))
    return { status: 'FAILED', failureReason: 'no button named "Apply coupon"', stepCount: 0 };
  return { status: 'COMPLETED', stepCount: 5 };
}

export async function planRun(input: PlanRunInput): Promise<PlanRunResult> {
  if (input.runShortId.includes('broken')) throw ApplicationFailure.nonRetryable(`run ${input.runShortId} broke`);
  return { status: 'COMPLETED', result: 'PASSED', counts: {}, continuations: 0 };
}

export async function chatTurn(input: ChatTurnInput): Promise<ChatTurnResult> {
  await db.finishChatReply({
    assistantMessageId: input.assistantMessageId,
    status: 'COMPLETED',
    text: `answer to turn ${input.turn}`,
    toolsUsed: [],
  });
  return { status: 'COMPLETED', toolsUsed: [] };
}
