// A chat's turns and the life of each reply: a user message and its assistant placeholder written together, the
// reply streamed (PARTIAL) and finished by the chat workflow, read by a waiting caller. Kept apart from
// chats.ts (the conversations themselves: create, find, list, their view) because the workflow's activities write
// here while the API reads there.
import type { DB } from '../database.js';
import type { ChatMessageStatus } from '../schema.js';
import { openReplyStatuses } from '../../domain/chat.js';

/** A user message and its assistant placeholder (INITIATED), written together so an accepted message always has a reply row. */
export async function insertTurn(
  db: DB,
  input: {
    chatId: string;
    turn: number;
    text: string;
    userMessageId: string;
    assistantMessageId: string;
    idempotencyKey?: string;
  },
): Promise<void> {
  await db
    .insertInto('chat_messages')
    .values([
      {
        id: input.userMessageId,
        chat_id: input.chatId,
        turn: input.turn,
        role: 'user',
        text: input.text,
        status: 'COMPLETED',
        idempotency_key: input.idempotencyKey ?? null,
      },
      {
        id: input.assistantMessageId,
        chat_id: input.chatId,
        turn: input.turn,
        role: 'assistant',
        text: '',
        status: 'INITIATED',
      },
    ])
    .execute();
  await db
    .updateTable('chats')
    .set({ turn_count: input.turn, updated_at: new Date() })
    .where('id', '=', input.chatId)
    .execute();
}

export async function findTurnByIdempotencyKey(
  db: DB,
  chatId: string,
  key: string,
): Promise<{ turn: number } | undefined> {
  return db
    .selectFrom('chat_messages')
    .select('turn')
    .where('chat_id', '=', chatId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export async function turnMessageIds(
  db: DB,
  chatId: string,
  turn: number,
): Promise<{ userMessageId: string; assistantMessageId: string } | undefined> {
  const rows = await db
    .selectFrom('chat_messages')
    .select(['id', 'role'])
    .where('chat_id', '=', chatId)
    .where('turn', '=', turn)
    .execute();
  const user = rows.find((r) => r.role === 'user');
  const assistant = rows.find((r) => r.role === 'assistant');
  return user && assistant ? { userMessageId: user.id, assistantMessageId: assistant.id } : undefined;
}

/** The streamed text so far; only while the reply is still open, so a late flush never reopens a finished reply. */
export async function writePartialReply(db: DB, messageId: string, text: string): Promise<boolean> {
  const result = await db
    .updateTable('chat_messages')
    .set({ text, status: 'PARTIAL', is_streaming: true, updated_at: new Date() })
    .where('id', '=', messageId)
    .where('status', 'in', [...openReplyStatuses])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function finishReply(
  db: DB,
  messageId: string,
  input: { status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; text?: string; toolsUsed: string[] },
): Promise<void> {
  await db
    .updateTable('chat_messages')
    .set({
      status: input.status,
      is_streaming: false,
      tools_used: input.toolsUsed,
      updated_at: new Date(),
      ...(input.text !== undefined && { text: input.text }),
    })
    .where('id', '=', messageId)
    .where('status', 'in', [...openReplyStatuses])
    .execute();
}

export async function replyStatus(db: DB, messageId: string): Promise<ChatMessageStatus | undefined> {
  const row = await db.selectFrom('chat_messages').select('status').where('id', '=', messageId).executeTakeFirst();
  return row ? (row.status ?? 'COMPLETED') : undefined;
}

/** A reply as a waiting caller reads it (an old row without a status is a finished one). */
export async function readReply(
  db: DB,
  messageId: string,
): Promise<{ id: string; status: ChatMessageStatus; text: string; isStreaming: boolean }> {
  const row = await db
    .selectFrom('chat_messages')
    .select(['id', 'status', 'text', 'is_streaming'])
    .where('id', '=', messageId)
    .executeTakeFirstOrThrow();
  return { id: row.id, status: row.status ?? 'COMPLETED', text: row.text, isStreaming: row.is_streaming };
}

/** The finished messages before this turn plus this turn's user message: what the model is told. */
export async function conversationForTurn(
  db: DB,
  chatId: string,
  turn: number,
  maxMessages = 30,
): Promise<{ role: 'user' | 'assistant'; text: string }[]> {
  const rows = await db
    .selectFrom('chat_messages')
    .select(['role', 'text', 'status', 'turn'])
    .where('chat_id', '=', chatId)
    .where('turn', '<=', turn)
    .orderBy('seq', 'desc')
    .limit(maxMessages)
    .execute();
  return rows
    .reverse()
    .filter((r) => (r.role === 'user' ? true : r.turn < turn && r.status === 'COMPLETED' && r.text !== ''))
    .map((r) => ({ role: r.role, text: r.text }));
}
