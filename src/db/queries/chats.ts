import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { DB } from '../database.js';
import type { ChatMessageStatus } from '../schema.js';
import type { ApplicationOverride } from '../../domain/precedence.js';
import type { UsageTotals } from '../../domain/llm-usage.js';
import type { SelectedRow } from './rows.js';

export interface ChatMessageView {
  id: string;
  role: 'user' | 'assistant';
  createdAt: string;
  text: string;
  status: ChatMessageStatus;
  isStreaming: boolean;
  /** Assistant messages: the turn's LLM calls and tokens (src/services/llm-usage.ts `withTurnUsage`). */
  usage?: UsageTotals;
}

export interface ChatView {
  shortId: string;
  url: string;
  title: string | null;
  createdAt: string;
  updatedAt: string;
  source: 'api' | 'ui' | 'github' | 'gitlab' | 'system';
  messages: ChatMessageView[];
}

export interface ChatRecord {
  id: string;
  shortId: string;
  projectId: string;
  title: string | null;
  source: ChatView['source'];
  applicationOverrides: ApplicationOverride[];
  turnCount: number;
  createdAt: Date;
  updatedAt: Date;
}

const chatColumns = [
  'id',
  'short_id',
  'project_id',
  'title',
  'source',
  'application_overrides',
  'turn_count',
  'created_at',
  'updated_at',
] as const;

type ChatRow = SelectedRow<typeof selectChats>;
const selectChats = (db: DB) => db.selectFrom('chats').select(chatColumns);

function toRecord(row: ChatRow): ChatRecord {
  return {
    id: row.id,
    shortId: row.short_id,
    projectId: row.project_id,
    title: row.title,
    source: row.source,
    applicationOverrides: (row.application_overrides as ApplicationOverride[] | null) ?? [],
    turnCount: row.turn_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The project's conversation, or undefined (also when it belongs to another project). `lock` holds it for a new turn. */
export async function findChat(
  db: DB,
  projectId: string,
  shortId: string,
  opts: { lock?: boolean } = {},
): Promise<ChatRecord | undefined> {
  let query = selectChats(db).where('project_id', '=', projectId).where('short_id', '=', shortId);
  if (opts.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && toRecord(row);
}

export async function findChatById(db: DB, chatId: string): Promise<ChatRecord | undefined> {
  const row = await selectChats(db).where('id', '=', chatId).executeTakeFirst();
  return row && toRecord(row);
}

export async function findChatByIdempotencyKey(
  db: DB,
  projectId: string,
  key: string,
): Promise<ChatRecord | undefined> {
  const row = await selectChats(db)
    .where('project_id', '=', projectId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function insertChat(
  db: DB,
  input: {
    id: string;
    shortId: string;
    projectId: string;
    source: ChatView['source'];
    applicationOverrides: ApplicationOverride[];
    idempotencyKey?: string;
  },
): Promise<void> {
  await db
    .insertInto('chats')
    .values({
      id: input.id,
      short_id: input.shortId,
      project_id: input.projectId,
      source: input.source,
      application_overrides: JSON.stringify(input.applicationOverrides),
      idempotency_key: input.idempotencyKey ?? null,
    })
    .execute();
}

const messageColumns = ['id', 'role', 'created_at', 'text', 'status', 'is_streaming'] as const;
type MessageRow = {
  id: string;
  role: ChatMessageView['role'];
  created_at: Date;
  text: string;
  status: ChatMessageStatus | null;
  is_streaming: boolean;
};
const toMessageView = (r: MessageRow): ChatMessageView => ({
  id: r.id,
  role: r.role,
  createdAt: r.created_at.toISOString(),
  text: r.text,
  status: r.status ?? 'COMPLETED',
  isStreaming: r.is_streaming,
});

/**
 * The project's conversation with its newest `limit` messages (newest first), in one round trip: what clients
 * poll every few seconds while a reply streams.
 */
export async function findChatWithMessages(
  db: DB,
  projectId: string,
  shortId: string,
  limit: number,
): Promise<{ chat: ChatRecord; messages: ChatMessageView[] } | undefined> {
  const row = await selectChats(db)
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('chat_messages')
          .select(messageColumns)
          .whereRef('chat_messages.chat_id', '=', 'chats.id')
          .orderBy('seq', 'desc')
          .limit(limit),
      ).as('messages'),
    )
    .where('project_id', '=', projectId)
    .where('short_id', '=', shortId)
    .executeTakeFirst();
  if (!row) return undefined;
  // Inside JSON a timestamp is text, not a Date.
  const messages = row.messages.map((m) =>
    toMessageView({ ...m, created_at: new Date(m.created_at as unknown as string) }),
  );
  return { chat: toRecord(row), messages };
}

export async function recentMessages(db: DB, chatId: string, limit: number): Promise<ChatMessageView[]> {
  const rows = await db
    .selectFrom('chat_messages')
    .select(messageColumns)
    .where('chat_id', '=', chatId)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toMessageView);
}

export async function latestAssistantMessage(
  db: DB,
  chatId: string,
): Promise<{ id: string; status: ChatMessageStatus; turn: number } | undefined> {
  const row = await db
    .selectFrom('chat_messages')
    .select(['id', 'status', 'turn'])
    .where('chat_id', '=', chatId)
    .where('role', '=', 'assistant')
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  return row && { id: row.id, status: row.status ?? 'COMPLETED', turn: row.turn };
}

export async function listChats(
  db: DB,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ chats: ChatRecord[]; total: number }> {
  const rows = await selectChats(db)
    .where('project_id', '=', projectId)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { count } = await db
    .selectFrom('chats')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return { chats: rows.map(toRecord), total: Number(count) };
}

export function toChatView(chat: ChatRecord, appUrl: string, messages: ChatMessageView[]): ChatView {
  return {
    shortId: chat.shortId,
    url: `${appUrl}/chats/${chat.shortId}`,
    title: chat.title,
    createdAt: chat.createdAt.toISOString(),
    updatedAt: chat.updatedAt.toISOString(),
    source: chat.source,
    messages,
  };
}

// ---- the workflow's side: the title, the runs it started (its turns and replies: chat-turns.ts) ----

export async function setTitleIfMissing(db: DB, chatId: string, title: string): Promise<void> {
  await db.updateTable('chats').set({ title }).where('id', '=', chatId).where('title', 'is', null).execute();
}

export async function linkRun(db: DB, chatId: string, runId: string): Promise<void> {
  await db
    .insertInto('chat_runs')
    .values({ chat_id: chatId, run_id: runId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function chatRunId(db: DB, chatId: string, runShortId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('chat_runs as c')
    .innerJoin('runs as r', 'r.id', 'c.run_id')
    .select('r.id')
    .where('c.chat_id', '=', chatId)
    .where('r.short_id', '=', runShortId)
    .executeTakeFirst();
  return row?.id;
}

/** The conversation's first user message, if any (its title comes from it). */
export async function firstUserMessage(db: DB, chatId: string): Promise<string | undefined> {
  return (
    await db
      .selectFrom('chat_messages')
      .select('text')
      .where('chat_id', '=', chatId)
      .where('role', '=', 'user')
      .orderBy('seq')
      .executeTakeFirst()
  )?.text;
}

export async function chatShortIdById(db: DB, chatId: string): Promise<string> {
  return (await db.selectFrom('chats').select('short_id').where('id', '=', chatId).executeTakeFirstOrThrow()).short_id;
}
