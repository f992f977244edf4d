// What the dashboard's conversation pages show, for the session's project only: the same conversation records the
// chat API serves, in reading order, plus the runs the assistant started from it.
import type { DB } from '../database.js';
import { findChat, recentMessages, type ChatMessageView, type ChatRecord } from './chats.js';
import type { RunStatus, TestResult } from '../schema.js';
import { isReplyOpen } from '../../domain/chat.js';

export interface ConversationPage {
  chat: ChatRecord;
  /** Oldest first, the last `messageLimit` of the conversation. */
  messages: ChatMessageView[];
  /** More messages exist before the first one shown. */
  truncated: boolean;
  /** A reply is still being written: the page keeps polling while this is true. */
  replying: boolean;
  runs: { shortId: string; status: RunStatus; result: TestResult | null; createdAt: Date }[];
}

export const messageLimit = 100;

/** The conversation with its messages and runs; undefined when the project has no such conversation. */
export async function loadConversation(
  db: DB,
  projectId: string,
  chatShortId: string,
): Promise<ConversationPage | undefined> {
  const chat = await findChat(db, projectId, chatShortId);
  if (!chat) return undefined;
  const [newestFirst, runs] = await Promise.all([
    recentMessages(db, chat.id, messageLimit + 1),
    db
      .selectFrom('chat_runs as c')
      .innerJoin('runs as r', 'r.id', 'c.run_id')
      .select(['r.short_id', 'r.status', 'r.result', 'r.created_at'])
      .where('c.chat_id', '=', chat.id)
      .where('r.project_id', '=', projectId)
      .orderBy('r.created_at', 'desc')
      .execute(),
  ]);
  const messages = newestFirst.slice(0, messageLimit).reverse();
  return {
    chat,
    messages,
    truncated: newestFirst.length > messageLimit,
    replying: messages.some((m) => isReplyOpen(m.status)),
    runs: runs.map((r) => ({ shortId: r.short_id, status: r.status, result: r.result, createdAt: r.created_at })),
  };
}
