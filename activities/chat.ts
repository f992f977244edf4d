import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { ActivityDeps } from './deps.js';
import { cancellationSignal, heartbeat, withHeartbeats } from './heartbeat.js';
import { findChatById, firstUserMessage, setTitleIfMissing } from '../src/db/queries/chats.js';
import { conversationForTurn, finishReply, replyStatus, writePartialReply } from '../src/db/queries/chat-turns.js';
import { isReplyOpen, titleFrom, type ChatToolCall, type ChatToolExchange } from '../src/domain/chat.js';
import { chatMessages, streamChat } from '../src/llm/chat.js';
import { chatRunConcurrency, runResultsTool } from '../src/services/chat-tools.js';
import { DomainError, LlmNotConfiguredError } from '../src/domain/errors.js';
import { llmFor } from './llm-usage.js';
import {
  chatToolSpecs,
  ChatToolError,
  findTool,
  parseToolArgs,
  type Tool,
  type ToolContext,
  type ToolRows,
  type ToolThatRuns,
} from '../src/services/tools/index.js';

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
    if (err instanceof ChatToolError || (err instanceof DomainError && err.kind !== 'Unavailable'))
      return { ok: false, message: `error: ${err.message}` };
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

/** The registry's tool of that name, if it runs the way the caller expects. */
function toolOf<K extends Tool['runs']>(name: string, runs: readonly K[]): ToolThatRuns<K> {
  const tool = findTool(name);
  if (!tool) throw new ChatToolError(`unknown tool "${name}"`);
  if (!(runs as readonly string[]).includes(tool.runs)) throw new ChatToolError(`tool "${name}" cannot run here`);
  return tool as ToolThatRuns<K>;
}

export function createChatActivities(deps: ActivityDeps) {
  const ctx = (input: { chatId: string; projectId: string }): ToolContext => ({
    ...deps,
    // The worker has no Temporal part: a tool that starts a workflow (start_discovery) uses the activity's own client.
    // Read when called (inside the activity), so building a context outside one does not throw.
    temporal: {
      get taskQueue() {
        return Context.current().info.taskQueue;
      },
      get: async () => Context.current().client,
    },
    chatId: input.chatId,
    projectId: input.projectId,
  });

  /** A tool that answers text (`activity` or `browser`): validated by its schema, run by its handler. */
  const runTool = async (input: {
    chatId: string;
    projectId: string;
    name: string;
    args: Record<string, unknown>;
  }): Promise<string> => {
    const result = await answer(async () => {
      const tool = toolOf(input.name, ['activity', 'browser']);
      const args = parseToolArgs(tool, input.args);
      if (tool.runs === 'activity') return { text: await tool.handler(ctx(input), args, undefined) };
      return {
        text: await withHeartbeats((progress) =>
          tool.handler({ ...ctx(input), signal: cancellationSignal(), progress }, args, undefined),
        ),
      };
    });
    return result.ok ? result.text : result.message;
  };

  /** The rows of a tool that runs a child workflow (`burnIn`, `planRun`), written once per `key`. */
  const writeRows = <K extends 'burnIn' | 'planRun'>(
    runs: K,
    input: { chatId: string; projectId: string; name: string; args: Record<string, unknown>; key?: string },
  ) =>
    answer(async () => {
      const tool = toolOf(input.name, [runs]);
      return (await tool.handler(ctx(input), parseToolArgs(tool, input.args), input.key)) as ToolRows[K];
    });

  return {
    /** false when the reply already ended (cancelled while it waited): the turn is skipped. */
    async beginChatTurn(input: { assistantMessageId: string }): Promise<boolean> {
      const status = await replyStatus(deps.db, input.assistantMessageId);
      return isReplyOpen(status);
    },

    /**
     * One streamed model call: the text goes into the assistant message as it arrives (PARTIAL, isStreaming).
     * A retry after a crash streams again from `prefix`, overwriting the same message: never a second one.
     */
    async streamChatReply(input: StreamChatReplyInput): Promise<StreamChatReplyResult> {
      if (!deps.llm) throw new LlmNotConfiguredError();
      const llm = llmFor(deps, deps.llm, {
        projectId: input.projectId,
        purpose: 'chat',
        chatId: input.chatId,
        chatMessageId: input.assistantMessageId,
      });
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
            tools: chatToolSpecs,
            signal: abort.signal,
            onText: (delta) => {
              text += (first ? separator : '') + delta;
              first = false;
              writer.poke();
            },
          }),
        );
        await writer.flush();
        // How each call runs travels with it, so the workflow routes by the registry without importing it.
        return {
          text,
          roundText: reply.text,
          toolCalls: reply.toolCalls.map((call) => ({ ...call, runs: findTool(call.name)?.runs ?? 'activity' })),
        };
      } catch (err) {
        writer.cancel();
        if (abort.signal.aborted) throw new CancelledFailure('the reply was cancelled');
        throw err;
      }
    },

    async finishChatReply(input: {
      assistantMessageId: string;
      status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
      text?: string;
      toolsUsed: string[];
    }): Promise<void> {
      await finishReply(deps.db, input.assistantMessageId, input);
    },

    /** The title comes from the first message (no model call: it must not cost a turn or fail one). */
    async titleChat(input: { chatId: string }): Promise<void> {
      const chat = await findChatById(deps.db, input.chatId);
      if (!chat || chat.title) return;
      const first = await firstUserMessage(deps.db, input.chatId);
      if (first !== undefined) await setTitleIfMissing(deps.db, input.chatId, titleFrom(first));
    },

    runChatTool: runTool,

    /** Idempotent per tool call: a retried activity answers with the test case it already wrote (its id comes from the key). */
    async createChatTestCase(input: {
      chatId: string;
      projectId: string;
      /** Absent in turns scheduled before the tool registry: create_test_case was the only such tool. */
      name?: string;
      args: Record<string, unknown>;
      /** Absent in turns scheduled before keys were sent: those get a new id, as they always did. */
      key?: string;
    }): Promise<Outcome<ToolRows['burnIn']>> {
      return writeRows('burnIn', { ...input, name: input.name ?? 'create_test_case' });
    },

    /** Idempotent per workflow attempt: a retried activity finds the run it already wrote (key = activity id). */
    async createChatRun(input: {
      chatId: string;
      projectId: string;
      /** Absent in turns scheduled before the tool registry: run_tests was the only such tool. */
      name?: string;
      args: Record<string, unknown>;
      key: string;
    }): Promise<Outcome<ToolRows['planRun'] & { concurrency: number }>> {
      const rows = await writeRows('planRun', { ...input, name: input.name ?? 'run_tests' });
      return rows.ok ? { ...rows, concurrency: chatRunConcurrency } : rows;
    },

    /** What the model is told when a run it started has ended. */
    async chatRunResults(input: { chatId: string; projectId: string; runShortId: string }): Promise<string> {
      const result = await answer(async () => ({
        text: await runResultsTool(ctx(input), { runShortId: input.runShortId }),
      }));
      return result.ok ? result.text : result.message;
    },

    /** explore_page as turns scheduled it before the tool registry (before patch chat-tool-registry); now runChatTool. */
    async exploreChatPage(input: {
      chatId: string;
      projectId: string;
      args: Record<string, unknown>;
    }): Promise<string> {
      return runTool({ ...input, name: 'explore_page' });
    },
  };
}
