import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { ConversationTurns } from './conversation-turns.js';
import {
  cancelChatReplySignal,
  chatMessageSignal,
  chatStateQuery,
  type ChatConversationInput,
} from './chat-contract.js';

/** A conversation nobody writes to for this long ends; the next message starts it again under the same id. */
const idleTimeout = '1 hour';

/**
 * One conversation (`chat:<shortId>`): the API signals each written turn (signal-with-start); handlers only
 * enqueue, the main loop answers turns strictly in turn order, each as a `chatTurn` child, and continues as new
 * when Temporal suggests it, carrying only the turns still waiting.
 */
export async function chatConversation(input: ChatConversationInput): Promise<void> {
  const turns = new ConversationTurns(input.pending);
  const { pending } = turns;
  let answered = 0;

  setHandler(chatMessageSignal, (request) => turns.accept(request));
  setHandler(cancelChatReplySignal, ({ assistantMessageId }) => turns.cancel(assistantMessageId));
  setHandler(chatStateQuery, () => ({
    answered,
    pending: pending.map((p) => p.turn),
    current: turns.current?.request.turn ?? null,
  }));

  for (;;) {
    const woken = await condition(() => pending.length > 0 || workflowInfo().continueAsNewSuggested, idleTimeout);
    if (pending.length === 0 || workflowInfo().continueAsNewSuggested) {
      // Let a signal being handled land in `pending` before deciding there is nothing left to carry.
      await condition(allHandlersFinished);
      if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof chatConversation>({ ...input, pending });
      if (!woken && pending.length === 0) return;
      if (pending.length === 0) continue;
    }

    if ((await turns.answerNext(input)) === 'answered') answered++;
  }
}
