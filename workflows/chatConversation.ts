import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { dbActivity } from './activity-options.js';
import { answerTurn } from './answer-turn.js';
import {
  cancelChatReplySignal,
  chatMessageSignal,
  chatStateQuery,
  type ChatConversationInput,
  type ChatTurnRequest,
} from './shared.js';

type Activities = ReturnType<typeof createActivities>;
const db = proxyActivities<Activities>(dbActivity);

/** A conversation nobody writes to for this long ends; the next message starts it again under the same id. */
const idleTimeout = '1 hour';

/**
 * One conversation (`chat:<shortId>`): the API signals each written turn (signal-with-start); handlers only
 * enqueue, the main loop answers turns strictly in turn order, each as a `chatTurn` child, and continues as new
 * when Temporal suggests it, carrying only the turns still waiting.
 */
export async function chatConversation(input: ChatConversationInput): Promise<void> {
  const pending: ChatTurnRequest[] = [...(input.pending ?? [])];
  const seen = new Set(pending.map((p) => p.turn));
  const cancelled = new Set<string>();
  let current: { request: ChatTurnRequest; scope: CancellationScope } | undefined;
  let answered = 0;

  setHandler(chatMessageSignal, (request) => {
    if (seen.has(request.turn)) return;
    seen.add(request.turn);
    pending.push(request);
    pending.sort((a, b) => a.turn - b.turn);
  });
  setHandler(cancelChatReplySignal, ({ assistantMessageId }) => {
    if (current?.request.assistantMessageId === assistantMessageId) current.scope.cancel();
    else cancelled.add(assistantMessageId);
  });
  setHandler(chatStateQuery, () => ({ answered, pending: pending.map((p) => p.turn), current: current?.request.turn ?? null }));

  for (;;) {
    const woken = await condition(() => pending.length > 0 || workflowInfo().continueAsNewSuggested, idleTimeout);
    if (pending.length === 0 || workflowInfo().continueAsNewSuggested) {
      // Let a signal being handled land in `pending` before deciding there is nothing left to carry.
      await condition(allHandlersFinished);
      if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof chatConversation>({ ...input, pending });
      if (!woken && pending.length === 0) return;
      if (pending.length === 0) continue;
    }

    const request = pending.shift()!;
    if (cancelled.delete(request.assistantMessageId)) {
      await db.finishChatReply({ assistantMessageId: request.assistantMessageId, status: 'CANCELLED', toolsUsed: [] });
      continue;
    }
    const scope = new CancellationScope();
    current = { request, scope };
    try {
      await answerTurn(input, request, scope);
    } finally {
      current = undefined;
      answered++;
    }
  }
}
