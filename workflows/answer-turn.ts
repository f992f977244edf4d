import { CancellationScope, ChildWorkflowCancellationType, executeChild, isCancellation, log, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { dbActivity } from './activity-options.js';
import { chatTurn } from './chatTurn.js';
import { innermostMessage } from './errors.js';
import { chatTurnWorkflowId, type ChatTurnRequest } from './shared.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);

/**
 * Answers one user message as a `chatTurn` child inside `scope` (so a cancel signal can stop it), for every
 * workflow that owns a conversation (`chatConversation`, and `changeReview` for follow-ups after its verdict).
 * The turn ends its reply itself; this covers a turn that could not (cancelled, terminated, failed for good).
 */
export async function answerTurn(conversation: { chatId: string; chatShortId: string; projectId: string }, request: ChatTurnRequest, scope: CancellationScope): Promise<void> {
  const { chatId, chatShortId, projectId } = conversation;
  try {
    await scope.run(() =>
      executeChild(chatTurn, {
        workflowId: chatTurnWorkflowId(chatShortId, request.turn),
        staticSummary: `Chat ${chatShortId}, turn ${request.turn}`,
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        args: [{ ...request, chatId, chatShortId, projectId }],
      }),
    );
  } catch (err) {
    if (!isCancellation(err)) log.warn('chat turn failed', { turn: request.turn, error: innermostMessage(err) });
    await db.finishChatReply({
      assistantMessageId: request.assistantMessageId,
      status: isCancellation(err) ? 'CANCELLED' : 'FAILED',
      text: isCancellation(err) ? undefined : `The assistant could not answer: ${innermostMessage(err)}`,
      toolsUsed: [],
    });
  }
}
