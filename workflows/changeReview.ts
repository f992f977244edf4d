import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ChangeReviewPhase } from '../src/domain/change-review.js';
import { dbActivity } from './activity-options.js';
import { reviewChange } from './change-review-steps.js';
import { ConversationTurns } from './conversation-turns.js';
import { reasonOf } from './errors.js';
import { cancelChatReplySignal, chatMessageSignal } from './chat-contract.js';
import { changeReviewStateQuery, type ChangeReviewInput, type ChangeReviewResult } from './change-review-contract.js';
import { failureTypes } from './shared.js';

const db = proxyActivities<Activities>(dbActivity);

/**
 * A change review, as its conversation's workflow (`chat:<shortId>`): `reviewChange` reads the change, runs the tests
 * it affects and ends the reply with the verdict. The reply stays PARTIAL with progress text until then (clients stop
 * at the first COMPLETED message); cancelling that reply cancels the review alone.
 *
 * Follow-up messages sent meanwhile arrive as `chatMessage` signals to the same id: they are queued and answered
 * in order (each a `chatTurn` child, as `chatConversation` does) after the verdict; once none is left the workflow
 * returns, and the next message starts a `chatConversation` under the id. The result is returned only then, so a
 * parent (merge-request review) gets it after the follow-ups queued during the review have been answered.
 */
export async function changeReview(input: ChangeReviewInput): Promise<ChangeReviewResult> {
  const turns = new ConversationTurns([], [1]);
  const followUps = turns.pending;
  const reviewScope = new CancellationScope();
  let phase: ChangeReviewPhase = 'queued';

  setHandler(chatMessageSignal, (request) => turns.accept(request));
  setHandler(cancelChatReplySignal, ({ assistantMessageId }) => {
    if (assistantMessageId === input.assistantMessageId) reviewScope.cancel();
    else turns.cancel(assistantMessageId);
  });
  setHandler(changeReviewStateQuery, () => ({ phase, followUps: followUps.map((t) => t.turn) }));

  let result: ChangeReviewResult | undefined;
  let ended = '';
  try {
    result = await reviewScope.run(() => reviewChange(input, (p) => (phase = p)));
  } catch (err) {
    const cancelled = isCancellation(err);
    ended = cancelled ? 'was cancelled' : `failed: ${reasonOf(err)}`;
    if (!cancelled) log.warn('change review failed', { chat: input.chatShortId, error: reasonOf(err) });
    await CancellationScope.nonCancellable(() =>
      db.endChangeReview({
        changeReviewId: input.changeReviewId,
        assistantMessageId: input.assistantMessageId,
        state: cancelled ? 'CANCELLED' : 'FAILED',
        reason: cancelled ? undefined : reasonOf(err),
      }),
    );
    // The whole workflow was cancelled (not only the review's reply): nothing more runs; waiting replies end too.
    if (cancelled && CancellationScope.current().consideredCancelled) {
      await CancellationScope.nonCancellable(() =>
        Promise.all(
          followUps.map((t) =>
            db.finishChatReply({ assistantMessageId: t.assistantMessageId, status: 'CANCELLED', toolsUsed: [] }),
          ),
        ),
      );
      throw err;
    }
  }
  phase = 'done';

  // Follow-ups, strictly in turn order; a signal still being handled lands in the queue before the check.
  for (;;) {
    await condition(allHandlersFinished);
    if ((await turns.answerNext(input)) === 'none') break;
  }

  if (!result)
    throw ApplicationFailure.create({
      message: `change review ${input.chatShortId} ${ended}`,
      type: failureTypes.changeReviewFailed,
      nonRetryable: true,
    });
  return result;
}
