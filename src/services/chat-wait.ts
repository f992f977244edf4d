// "Send and wait" for clients that cannot poll comfortably (the MCP tool): send a message as the chat routes do,
// then wait a bounded time for its reply to end. The reply is written by the conversation's workflow; waiting
// reads its row, as a polling client would, and never holds anything the workflow needs.
import { setTimeout as sleep } from 'node:timers/promises';
import { toChatView } from '../db/queries/chats.js';
import { readReply } from '../db/queries/chat-turns.js';
import type { ChatMessageStatus } from '../db/schema.js';
import type { ApplicationOverride } from '../domain/precedence.js';
import { isReplyOpen } from '../domain/chat.js';
import { openConversation, sendTurn } from './chat.js';
import type { ServiceContext } from './context.js';

export interface SendAndWaitInput {
  projectId: string;
  message: string;
  /** A follow-up in this conversation; absent: a new conversation. */
  chatShortId?: string;
  /** Only for a new conversation, as on POST /v1/chat. */
  applicationOverrides?: ApplicationOverride[];
  waitMs: number;
  /** The caller went away: stop waiting (the message is kept and still answered). */
  signal?: AbortSignal;
}

export interface SentReply {
  chatShortId: string;
  url: string;
  /** false: the reply was still being written when the wait ended; poll the conversation for the rest. */
  finished: boolean;
  reply: { id: string; status: ChatMessageStatus; text: string; isStreaming: boolean };
}

const pollMs = 250;

export async function sendAndWait(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  input: SendAndWaitInput,
): Promise<SentReply> {
  const { chat, request } = input.chatShortId
    ? await sendTurn(deps, { projectId: input.projectId, chatShortId: input.chatShortId, message: input.message })
    : await openConversation(deps, {
        projectId: input.projectId,
        message: input.message,
        applicationOverrides: input.applicationOverrides,
      });
  const { assistantMessageId } = request;
  const deadline = Date.now() + input.waitMs;
  let reply = await readReply(deps.db, assistantMessageId);
  while (isReplyOpen(reply.status) && Date.now() < deadline && !input.signal?.aborted) {
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())), undefined, { signal: input.signal }).catch(
      () => undefined,
    );
    reply = await readReply(deps.db, assistantMessageId);
  }
  return {
    chatShortId: chat.shortId,
    url: toChatView(chat, deps.appUrl, []).url,
    finished: !isReplyOpen(reply.status),
    reply,
  };
}
