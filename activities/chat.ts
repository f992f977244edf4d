import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ActivityDeps } from './deps.js';
import { cancellationSignal, heartbeat, withHeartbeats } from './heartbeat.js';
import { conversationForTurn, findChatById, finishReply, replyStatus, setTitleIfMissing, writePartialReply } from '../src/db/queries/chats.js';
import { titleFrom, type ChatToolCall, type ChatToolExchange } from '../src/domain/chat.js';
import { chatMessages, streamChat } from '../src/llm/chat.js';
import { LlmNotConfiguredError } from '../src/llm/client.js';
import {
  chatRunConcurrency,
  ChatToolError,
  createRunTool,
  createTestCaseTool,
  getTestCaseTool,
  listApplicationsTool,
  listTestCasesTool,
  listTestPlansTool,
  runResultsTool,
  type ChatToolContext,
} from '../src/services/chat-tools.js';
import { explorePage } from '../src/services/chat-explore.js';
import { DomainError } from '../src/domain/errors.js';

/** The streamed text reaches the database at most this often (a poller sees it grow without a write per token). */
export const chatFlushIntervalMs = 250;

export interface StreamChatReplyInput {
  chatId: string;
  projectId: string;
  turn: number;
  assistantMessageId: string;
  /** Text this turn already showed (before earlier tool calls); the new text is appended. */
  prefix: string;
  exchanges: ChatToolExchange[];
}

export interface StreamChatReplyResult {
  /** Everything the message shows so far: prefix + this call's text. */
  text: string;
  /** This call's text alone (what the model said before asking for tools). */
  roundText: string;
  toolCalls: ChatToolCall[];
}

type Outcome<T> = ({ ok: true } & T) | { ok: false; message: string };

/** Tool failures the model can act on come back as text; anything else is a real failure of the activity. */
async function answer<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, ...(await work()) };
  } catch (err) {
    // The model is told what was refused, in the service's words, so it can correct itself; an outage
    // (UnavailableError) is not the model's to fix and fails the activity like any other error.
    if (err instanceof ChatToolError || (err instanceof DomainError && err.kind !== 'Unavailable')) return { ok: false, message: `error: ${err.message}` };
    throw err;
  }
}

/**
 * Writes at most every `ms`, always the latest text, one write at a time and in order; `flush()` writes what is
 * pending now (the end of a stream).
 */
function throttledWriter(write: () => Promise<void>, ms: number) {
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  const run = () => {
    timer = undefined;
    last = Date.now();
    chain = chain.then(write).catch((err: unknown) => void (failure ??= err));
  };
  return {
    poke() {
      if (!timer) timer = setTimeout(run, Math.max(0, last + ms - Date.now()));
    },
    async flush() {
      if (timer) {
        clearTimeout(timer);
        run();
      }
      await chain;
      if (failure) throw failure;
    },
    cancel() {
      if (timer) clearTimeout(timer);
    },
  };
}

export function createChatActivities(deps: ActivityDeps) {
  const ctx = (input: { chatId: string; projectId: string }): ChatToolContext => ({ db: deps.db, chatId: input.chatId, projectId: input.projectId });

  return {
    /** false when the reply already ended (cancelled while it waited): the turn is skipped. */
    async beginChatTurn(input: { assistantMessageId: string }): Promise<boolean> {
      const status = await replyStatus(deps.db, input.assistantMessageId);
      return status === 'INITIATED' || status === 'PARTIAL';
    },

    /**
     * One streamed model call: the text goes into the assistant message as it arrives (PARTIAL, isStreaming).
     * A retry after a crash streams again from `prefix`, overwriting the same message: never a second one.
     */
    async streamChatReply(input: StreamChatReplyInput): Promise<StreamChatReplyResult> {
      if (!deps.llm) throw ApplicationFailure.create({ message: new LlmNotConfiguredError().message, type: 'LlmNotConfigured', nonRetryable: true });
      const llm = deps.llm;
      const history = await conversationForTurn(deps.db, input.chatId, input.turn);
      const signal = cancellationSignal();
      const abort = new AbortController();
      signal?.addEventListener('abort', () => abort.abort(), { once: true });
      let text = input.prefix;
      const writer = throttledWriter(async () => {
        // The reply was ended elsewhere (cancelled): stop streaming into it.
        if (!(await writePartialReply(deps.db, input.assistantMessageId, text))) abort.abort();
        heartbeat({ chars: text.length });
      }, chatFlushIntervalMs);
      const separator = input.prefix && !/\s$/.test(input.prefix) ? '\n\n' : '';
      let first = true;
      try {
        const reply = await withHeartbeats(() =>
          streamChat(llm, chatMessages(history, input.exchanges), {
            signal: abort.signal,
            onText: (delta) => {
              text += (first ? separator : '') + delta;
              first = false;
              writer.poke();
            },
          }),
        );
        await writer.flush();
        return { text, roundText: reply.text, toolCalls: reply.toolCalls };
      } catch (err) {
        writer.cancel();
        if (abort.signal.aborted) throw new CancelledFailure('the reply was cancelled');
        throw err;
      }
    },

    async finishChatReply(input: { assistantMessageId: string; status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; text?: string; toolsUsed: string[] }): Promise<void> {
      await finishReply(deps.db, input.assistantMessageId, input);
    },

    /** The title comes from the first message (no model call: it must not cost a turn or fail one). */
    async titleChat(input: { chatId: string }): Promise<void> {
      const chat = await findChatById(deps.db, input.chatId);
      if (!chat || chat.title) return;
      const first = await deps.db.selectFrom('chat_messages').select('text').where('chat_id', '=', input.chatId).where('role', '=', 'user').orderBy('seq').executeTakeFirst();
      if (first) await setTitleIfMissing(deps.db, input.chatId, titleFrom(first.text));
    },

    async runChatTool(input: { chatId: string; projectId: string; name: string; args: Record<string, unknown> }): Promise<string> {
      const c = ctx(input);
      const result = await answer(async () => {
        switch (input.name) {
          case 'list_applications':
            return { text: await listApplicationsTool(c) };
          case 'list_test_plans':
            return { text: await listTestPlansTool(c) };
          case 'list_test_cases':
            return { text: await listTestCasesTool(c, input.args) };
          case 'get_test_case':
            return { text: await getTestCaseTool(c, input.args) };
          case 'get_run_results':
            return { text: await runResultsTool(c, input.args, deps.notify.appUrl) };
          default:
            throw new ChatToolError(`unknown tool "${input.name}"`);
        }
      });
      return result.ok ? result.text : result.message;
    },

    /** Idempotent per tool call: a retried activity answers with the test case it already wrote (its id comes from the key). */
    async createChatTestCase(input: {
      chatId: string;
      projectId: string;
      args: Record<string, unknown>;
      /** Absent in turns scheduled before keys were sent: those get a new id, as they always did. */
      key?: string;
    }): Promise<Outcome<{ testCaseId: string; name: string }>> {
      return answer(() => createTestCaseTool(ctx(input), input.args, input.key));
    },

    /** Idempotent per workflow attempt: a retried activity finds the run it already wrote (key = activity id). */
    async createChatRun(input: { chatId: string; projectId: string; args: Record<string, unknown>; key: string }): Promise<Outcome<{ runId: string; runShortId: string; testCount: number; concurrency: number }>> {
      return answer(async () => ({ ...(await createRunTool(ctx(input), input.args, input.key)), concurrency: chatRunConcurrency }));
    },

    async exploreChatPage(input: { chatId: string; projectId: string; args: Record<string, unknown> }): Promise<string> {
      const result = await answer(async () => ({
        text: await withHeartbeats((progress) =>
          explorePage(input.args, { browsers: deps.browsers, projectId: input.projectId, pageBudget: 3, timeoutMs: 90_000, signal: cancellationSignal(), onPage: (url) => progress({ url }) }),
        ),
      }));
      return result.ok ? result.text : result.message;
    },
  };
}
