// The chat's business operations, shared by the routes (and later the dashboard/MCP): plain functions that
// enforce the rules and throw the shared domain errors (src/domain/errors.ts); the HTTP layer maps those once.
import type { DB } from '../db/database.js';
import {
  findChat,
  findChatWithMessages,
  findChatByIdempotencyKey,
  insertChat,
  latestAssistantMessage,
  listChats,
  toChatView,
  type ChatRecord,
  type ChatView,
} from '../db/queries/chats.js';
import { findTurnByIdempotencyKey, finishReply, insertTurn, turnMessageIds } from '../db/queries/chat-turns.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import type { ApplicationOverride } from '../domain/precedence.js';
import { isReplyOpen } from '../domain/chat.js';
import { findOverrideTarget, missingTarget } from './application-overrides.js';
import { newId, newShortId } from '../ids.js';
import { cancelChatReply, sendChatTurn } from '../temporal/chat-lifecycle.js';
import { ConflictError, InvalidError, NotFoundError, UnavailableError } from '../domain/errors.js';
import type { ChatTurnRequest } from '../../workflows/chat-contract.js';
import { assertLlmBudget, chatTurnUsage, withTurnUsage } from './llm-usage.js';
import type { ServiceContext } from './context.js';

export const defaultMessageLimit = 20;

/** Each override must name the project's application once, and an environment/preset/build of that application. */
export async function checkOverrides(
  { db }: ServiceContext,
  projectId: string,
  overrides: ApplicationOverride[],
): Promise<void> {
  const seen = new Set<string>();
  for (const [i, o] of overrides.entries()) {
    const at = `applicationOverrides.${i}`;
    if (seen.has(o.applicationShortId))
      throw new InvalidError(`${at}.applicationShortId: ${o.applicationShortId} is listed twice`);
    seen.add(o.applicationShortId);
    const appId = await findIdByShortId(db, 'applications', projectId, o.applicationShortId);
    if (!appId) throw new NotFoundError('Application', o.applicationShortId);
    const env = o.environment;
    if (env && !(await findOverrideTarget({ db }, projectId, env, appId))) {
      const [what, shortId] = missingTarget(env);
      throw new NotFoundError(what, `${shortId} (of application ${o.applicationShortId})`);
    }
    if (o.devicePresetShortId && !(await findIdByShortId(db, 'device_presets', projectId, o.devicePresetShortId))) {
      throw new NotFoundError('Device preset', o.devicePresetShortId);
    }
  }
}

/**
 * Hands the turn to the workflow. The rows are already committed, so a failure here must not lose the message
 * silently: its reply is marked FAILED with the reason and the caller gets a 503.
 */
async function dispatch(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  chat: ChatRecord,
  request: ChatTurnRequest,
): Promise<void> {
  try {
    await sendChatTurn(
      deps.temporal,
      { chatId: chat.id, chatShortId: chat.shortId, projectId: chat.projectId },
      request,
    );
  } catch (err) {
    const reason = `could not start processing the message: ${err instanceof Error ? err.message : String(err)}`;
    await finishReply(deps.db, request.assistantMessageId, { status: 'FAILED', text: reason, toolsUsed: [] });
    throw new UnavailableError(`${reason}; send it again`);
  }
}

export const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

/** A new turn's message ids, made here and handed on as they are (never read back). */
const newTurn = (turn: number): ChatTurnRequest => ({ turn, userMessageId: newId(), assistantMessageId: newId() });

/** The ids of a turn an earlier request wrote (an idempotent repeat). */
const earlierTurn = async (db: DB, chatId: string, turn: number): Promise<ChatTurnRequest> => ({
  turn,
  ...(await turnMessageIds(db, chatId, turn))!,
});

/** A conversation to start: its first message, and the application overrides it keeps for good. */
export interface NewConversation {
  projectId: string;
  message: string;
  applicationOverrides?: ApplicationOverride[];
  idempotencyKey?: string;
  source?: 'api' | 'ui';
}

/**
 * POST /v1/chat (and the dashboard's new-conversation form, source 'ui'): a new conversation with its first message;
 * the overrides given here are the conversation's for good.
 */
export async function createConversation(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  input: NewConversation,
): Promise<ChatView> {
  const { chat } = await openConversation(deps, input);
  return toChatView(chat, deps.appUrl, []);
}

/** createConversation, answering the conversation and its first turn's message ids. */
export async function openConversation(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  input: NewConversation,
): Promise<{ chat: ChatRecord; request: ChatTurnRequest }> {
  const { db } = deps;
  const repeated = async (existing: ChatRecord) => ({ chat: existing, request: await earlierTurn(db, existing.id, 1) });
  if (input.idempotencyKey) {
    const existing = await findChatByIdempotencyKey(db, input.projectId, input.idempotencyKey);
    if (existing) return repeated(existing);
  }
  const overrides = input.applicationOverrides ?? [];
  await checkOverrides({ db }, input.projectId, overrides);
  // Each turn is LLM work: refused (429) once the project's daily budget is spent, before anything is written.
  await assertLlmBudget({ db }, input.projectId);
  const id = newId();
  const shortId = newShortId('chat');
  const request = newTurn(1);
  try {
    await db.transaction().execute(async (trx) => {
      await insertChat(trx, {
        id,
        shortId,
        projectId: input.projectId,
        source: input.source ?? 'api',
        applicationOverrides: overrides,
        idempotencyKey: input.idempotencyKey,
      });
      await insertTurn(trx, { chatId: id, text: input.message, ...request });
    });
  } catch (err) {
    // The same key sent twice at once: the loser answers with the winner's conversation.
    if (input.idempotencyKey && isUniqueViolation(err)) {
      const existing = await findChatByIdempotencyKey(db, input.projectId, input.idempotencyKey);
      if (existing) return repeated(existing);
    }
    throw err;
  }
  const chat = (await findChat(db, input.projectId, shortId))!;
  await dispatch(deps, chat, request);
  return { chat, request };
}

/** Stores the next message and hands it to the workflow; a repeated idempotency key answers with the earlier turn. */
export async function sendTurn(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  input: { projectId: string; chatShortId: string; message: string; idempotencyKey?: string },
): Promise<{ chat: ChatRecord; request: ChatTurnRequest }> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const chat = await findChat(trx, input.projectId, input.chatShortId, { lock: true });
    if (!chat) throw new NotFoundError('Conversation');
    if (input.idempotencyKey) {
      const earlier = await findTurnByIdempotencyKey(trx, chat.id, input.idempotencyKey);
      if (earlier) return { chat, request: await earlierTurn(trx, chat.id, earlier.turn), repeated: true };
    }
    // On the transaction: a second connection while it holds the chat's lock could wait for a pool slot forever.
    await assertLlmBudget({ db: trx }, input.projectId);
    const request = newTurn(chat.turnCount + 1);
    await insertTurn(trx, { chatId: chat.id, text: input.message, idempotencyKey: input.idempotencyKey, ...request });
    return { chat, request, repeated: false };
  });
  if (!result.repeated) await dispatch(deps, result.chat, result.request);
  return { chat: result.chat, request: result.request };
}

/**
 * POST /v1/chat/{id}: the next message, answered after every earlier one. Overrides in a follow-up are ignored:
 * a conversation keeps the environments of its first message.
 */
export async function sendMessage(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  input: { projectId: string; chatShortId: string; message: string; idempotencyKey?: string },
): Promise<ChatView> {
  await sendTurn(deps, input);
  return getConversation(deps, input);
}

export async function getConversation(
  deps: Pick<ServiceContext<'temporal' | 'appUrl'>, 'db' | 'appUrl'>,
  input: { projectId: string; chatShortId: string; limit?: number },
): Promise<ChatView> {
  const found = await findChatWithMessages(
    deps.db,
    input.projectId,
    input.chatShortId,
    input.limit ?? defaultMessageLimit,
  );
  if (!found) throw new NotFoundError('Conversation');
  return withTurnUsage(
    toChatView(found.chat, deps.appUrl, found.messages),
    await chatTurnUsage(deps, input.projectId, found.chat.id),
  );
}

export async function listConversations(
  deps: Pick<ServiceContext<'temporal' | 'appUrl'>, 'db' | 'appUrl'>,
  input: { projectId: string; limit: number; offset: number },
): Promise<{ chats: Omit<ChatView, 'messages'>[]; total: number; limit: number; offset: number }> {
  const { chats, total } = await listChats(deps.db, input.projectId, input);
  return {
    chats: chats.map((c) => {
      const { messages: _messages, ...rest } = toChatView(c, deps.appUrl, []);
      return rest;
    }),
    total,
    limit: input.limit,
    offset: input.offset,
  };
}

/** Ends the newest reply as CANCELLED (the workflow does it, so a reply never ends twice); 409 when it has already ended. */
export async function cancelReply(
  deps: ServiceContext<'temporal' | 'appUrl'>,
  input: { projectId: string; chatShortId: string },
): Promise<{ messageId: string }> {
  const chat = await findChat(deps.db, input.projectId, input.chatShortId);
  if (!chat) throw new NotFoundError('Conversation');
  const reply = await latestAssistantMessage(deps.db, chat.id);
  if (!reply || !isReplyOpen(reply.status)) {
    throw new ConflictError(`the latest reply already ended${reply ? ` (${reply.status})` : ''}`);
  }
  const delivered = await cancelChatReply(deps.temporal, chat.shortId, reply.id);
  // No workflow holds the reply (it could not be dispatched): nobody else will end it.
  if (!delivered) await finishReply(deps.db, reply.id, { status: 'CANCELLED', toolsUsed: [] });
  return { messageId: reply.id };
}
