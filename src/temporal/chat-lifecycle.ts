// The API reaches chat conversations only through these helpers, with business ids.
import { WorkflowNotFoundError } from '@temporalio/client';
import {
  cancelChatReplySignal,
  chatMessageSignal,
  type ChatConversationInput,
  type ChatTurnRequest,
} from '../../workflows/chat-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import type { ChangeReviewInput } from '../../workflows/change-review-contract.js';
import { signalWithStart, startWorkflow, type TemporalTarget } from './lifecycle.js';

/**
 * Hands a written turn to the conversation's workflow, starting it if it is not running (a conversation that
 * went idle ended; the next message starts a new run under the same id). The workflow ignores a turn it already has.
 */
export async function sendChatTurn(
  temporal: TemporalTarget,
  input: ChatConversationInput,
  turn: ChatTurnRequest,
): Promise<void> {
  await signalWithStart(temporal, 'chatConversation', {
    workflowId: workflowIds.chat(input.chatShortId),
    summary: `Chat ${input.chatShortId}`,
    attributes: { project: input.projectId },
    args: [input],
    signal: chatMessageSignal,
    signalArgs: [turn],
  });
}

/** Asks the conversation to end this reply as CANCELLED; false when no workflow is running for it. */
export async function cancelChatReply(
  temporal: TemporalTarget,
  chatShortId: string,
  assistantMessageId: string,
): Promise<boolean> {
  const client = await temporal.get();
  try {
    await client.workflow
      .getHandle(workflowIds.chat(chatShortId))
      .signal(cancelChatReplySignal, { assistantMessageId });
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Starts the review of a change as its conversation's workflow (`chat:<shortId>`); follow-up messages are signalled
 * to the same id and wait for the verdict. Already running counts as started.
 */
export async function startChangeReview(temporal: TemporalTarget, input: ChangeReviewInput): Promise<void> {
  await startWorkflow(temporal, 'changeReview', {
    workflowId: workflowIds.chat(input.chatShortId),
    summary: `Change review ${input.chatShortId}`,
    attributes: { project: input.projectId, trigger: 'CHANGE_REVIEW' },
    args: [input],
  });
}
