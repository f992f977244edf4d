import {
  CancellationScope,
  ChildWorkflowCancellationType,
  executeChild,
  isCancellation,
  log,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { dbActivity } from './activity-options.js';
import { chatTurn } from './chatTurn.js';
import { innermostMessage } from './errors.js';
import { chatTurnWorkflowId, type ChatTurnRequest } from './chat-contract.js';

const db = proxyActivities<Activities>(dbActivity);

/**
 * The user messages a conversation's workflow has accepted and not answered yet, in turn order, with the reply
 * being written now and the replies cancelled before their turn came. Signal handlers only record here
 * (`accept`, `cancel`); the workflow's main loop answers with `answerNext`, so ordering is explicit.
 */
export class ConversationTurns {
  /** Accepted, not answered yet, in turn order (carried over a continue-as-new). */
  readonly pending: ChatTurnRequest[];
  private readonly seen: Set<number>;
  private readonly cancelled = new Set<string>();
  current: { request: ChatTurnRequest; scope: CancellationScope } | undefined;

  /** `alreadySeen`: turns answered elsewhere (a change review's own first turn), so a redelivered signal is ignored. */
  constructor(carried: ChatTurnRequest[] = [], alreadySeen: number[] = []) {
    this.pending = [...carried];
    this.seen = new Set([...alreadySeen, ...carried.map((p) => p.turn)]);
  }

  accept(request: ChatTurnRequest): void {
    if (this.seen.has(request.turn)) return;
    this.seen.add(request.turn);
    this.pending.push(request);
    this.pending.sort((a, b) => a.turn - b.turn);
  }

  /** Stops the reply being written, or ends a waiting one as CANCELLED when its turn comes. */
  cancel(assistantMessageId: string): void {
    if (this.current?.request.assistantMessageId === assistantMessageId) this.current.scope.cancel();
    else this.cancelled.add(assistantMessageId);
  }

  /** Answers the next waiting turn: `none` when nothing waits, `cancelled` when its reply was cancelled before. */
  async answerNext(conversation: {
    chatId: string;
    chatShortId: string;
    projectId: string;
  }): Promise<'answered' | 'cancelled' | 'none'> {
    const request = this.pending.shift();
    if (!request) return 'none';
    if (this.cancelled.delete(request.assistantMessageId)) {
      await db.finishChatReply({ assistantMessageId: request.assistantMessageId, status: 'CANCELLED', toolsUsed: [] });
      return 'cancelled';
    }
    const scope = new CancellationScope();
    this.current = { request, scope };
    try {
      await answerTurn(conversation, request, scope);
    } finally {
      this.current = undefined;
    }
    return 'answered';
  }
}

/**
 * Answers one user message as a `chatTurn` child inside `scope` (so a cancel signal can stop it), for every
 * workflow that owns a conversation (`chatConversation`, and `changeReview` for follow-ups after its verdict).
 * The turn ends its reply itself; this covers a turn that could not (cancelled, terminated, failed for good).
 */
async function answerTurn(
  conversation: { chatId: string; chatShortId: string; projectId: string },
  request: ChatTurnRequest,
  scope: CancellationScope,
): Promise<void> {
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
