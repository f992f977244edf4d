// The chat workflows' contract: chatConversation (workflows/chatConversation.ts), one entity workflow per
// conversation (`chat:<shortId>`), and chatTurn, each turn its child. The API signals a conversation with these
// definitions without importing workflow code; changeReview answers the same signals under the same id.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** A user message the API has written (with its assistant placeholder), to be answered in turn order. */
export interface ChatTurnRequest {
  turn: number;
  userMessageId: string;
  assistantMessageId: string;
}

export interface ChatConversationInput {
  chatId: string;
  chatShortId: string;
  projectId: string;
  /** Turns accepted but not answered yet, carried over a continue-as-new. */
  pending?: ChatTurnRequest[];
}

export interface ChatTurnInput extends ChatTurnRequest {
  chatId: string;
  chatShortId: string;
  projectId: string;
}

export interface ChatTurnResult {
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
  toolsUsed: string[];
}

export const chatMessageSignal = defineSignal<[ChatTurnRequest]>('chatMessage');
/** Ends the reply of this assistant message as CANCELLED (streaming now, or still waiting its turn). */
export const cancelChatReplySignal = defineSignal<[{ assistantMessageId: string }]>('cancelChatReply');
/** Turn numbers answered so far and waiting, for operators and tests. */
export const chatStateQuery = defineQuery<{ answered: number; pending: number[]; current: number | null }>('chatState');

export const chatTurnWorkflowId = (chatShortId: string, turn: number) => `chat:${chatShortId}:turn:${turn}`;
