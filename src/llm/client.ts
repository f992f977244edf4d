import OpenAI from 'openai';
import { riding } from './outage.js';
import type { Config } from '../config.js';
import type { UsageMeter } from '../domain/llm-usage.js';
import type { ToolMode } from '../domain/llm-status.js';
import { callUsage } from './usage.js';
import { textToolInstructions, toolCallFromText } from './text-tool-calls.js';
import { annotateSpan, inSpan, spanAttr } from '../tracing.js';

export type { ToolMode };

/** Shared by every copy of an Llm (metered ones too), so a mode learnt on one call holds for the next. */
export interface LlmCompat {
  toolMode: ToolMode;
  /** Set by PROCTOR_LLM_TOOL_MODE: never changed by what a call finds. */
  fixed: boolean;
}

/** What a call is for: each may go to a model of its own on the same endpoint (PROCTOR_LLM_MODEL_<ROLE>). */
export type LlmRole = 'agent' | 'heal' | 'review' | 'chat';

export interface Llm {
  client: OpenAI;
  model: string;
  /** Models per role, and the tool mode learnt for each model (shared by every copy). */
  roles?: { models: Partial<Record<LlmRole, string>>; compat: Map<string, LlmCompat> };
  /** Where each call's tokens are reported, and the budget asked before it (absent: not counted). */
  meter?: UsageMeter;
  compat: LlmCompat;
  /** The role this copy was made for (`forRole`), named on its calls' spans. */
  role?: LlmRole;
  /** A page's tokens in a model call (PROCTOR_LLM_PAGE_TOKENS; unset: src/llm/page-view.ts `defaultPageTokens`). */
  pageTokens?: number;
  /** How long a call waits out an unreachable endpoint before it fails (src/llm/outage.ts); absent: not at all. */
  outageWaitMs?: number;
}

/** The same endpoint and model, with its calls reported to `meter` (one per piece of work: a burn-in, a chat turn…). */
export function metered(llm: Llm, meter: UsageMeter): Llm {
  return { ...llm, meter };
}

/** The LLM endpoint failed after the client's own retries: the run is blocked on something outside us. */
export class LlmUnavailableError extends Error {
  override name = 'LlmUnavailableError';
}

export function createLlm(
  config: Config['llm'],
  opts: { maxRetries?: number; timeoutMs?: number; toolMode?: ToolMode; outageWaitMs?: number } = {},
): Llm | undefined {
  if (!config) return undefined;
  return {
    client: new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseURL,
      maxRetries: opts.maxRetries ?? 3,
      timeout: opts.timeoutMs ?? 120_000,
    }),
    model: config.model,
    compat: { toolMode: opts.toolMode ?? 'native', fixed: opts.toolMode !== undefined },
    ...(config.models && { roles: { models: config.models, compat: new Map() } }),
    ...(config.pageTokens && { pageTokens: config.pageTokens }),
    ...(opts.outageWaitMs && { outageWaitMs: opts.outageWaitMs }),
  };
}

/**
 * The endpoint as a role uses it: the role's model if one is set. Another model may take tools differently, so it
 * keeps a tool mode of its own (learnt from refusals, or the one set by hand); the startup probe sees the default model.
 */
export function forRole(llm: Llm, role: LlmRole): Llm {
  const model = llm.roles?.models[role];
  if (!model || model === llm.model || !llm.roles) return { ...llm, role };
  let compat = llm.roles.compat.get(model);
  if (!compat)
    llm.roles.compat.set(
      model,
      (compat = { toolMode: llm.compat.fixed ? llm.compat.toolMode : 'native', fixed: llm.compat.fixed }),
    );
  return { ...llm, model, compat, role };
}

/** A model call in a span of its own (OpenTelemetry's GenAI names), its tokens set by `spanUsage` within. */
export function inLlmSpan<T>(llm: Llm, fn: () => Promise<T>): Promise<T> {
  const attrs = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': llm.model,
    ...(llm.role && { [spanAttr.llmRole]: llm.role }),
  };
  return inSpan(`chat ${llm.model}`, attrs, fn);
}

/** A call's token counts on its span (`inLlmSpan`). */
export function spanUsage(usage: OpenAI.CompletionUsage | null | undefined, responseModel?: string): void {
  annotateSpan({
    ...(usage && {
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
    }),
    ...(responseModel && { 'gen_ai.response.model': responseModel }),
  });
}

/**
 * The mode to fall back to when the endpoint refused a request of `mode` (a 400 naming what it does not take), or
 * undefined when the refusal is about something else.
 */
export function fallbackMode(mode: ToolMode, err: unknown): ToolMode | undefined {
  if (!(err instanceof OpenAI.APIError)) return undefined;
  const said = err.message.toLowerCase();
  // llama.cpp answers 500 for a request it cannot template ("tools param requires --jinja flag", "Unsupported param:
  // tools"); any other 500 is the server's trouble, not a mode to change.
  const refused =
    err.status === 400 ||
    err.status === 422 ||
    err.status === 501 ||
    (err.status === 500 && /requires --jinja|unsupported param/.test(said));
  if (!refused) return undefined;
  if (mode === 'native' && /parallel_tool_calls|tool_choice|parallel/.test(said)) return 'native-plain';
  if (mode !== 'text' && /tool|function/.test(said)) return 'text';
  return undefined;
}

function toolRequest(
  llm: Llm,
  mode: ToolMode,
  messages: OpenAI.ChatCompletionMessageParam[],
  tools: OpenAI.ChatCompletionTool[],
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const base = { model: llm.model, temperature: 0 };
  if (mode === 'native') return { ...base, messages, tools, tool_choice: 'required', parallel_tool_calls: false };
  if (mode === 'native-plain') return { ...base, messages, tools };
  return { ...base, messages: withSystemText(messages, textToolInstructions(tools, { required: true })) };
}

/** The messages with `text` added to the system prompt (one is made if there is none). */
export function withSystemText(
  messages: OpenAI.ChatCompletionMessageParam[],
  text: string,
): OpenAI.ChatCompletionMessageParam[] {
  const [first, ...rest] = messages;
  if (first?.role === 'system' && typeof first.content === 'string')
    return [{ role: 'system', content: `${first.content}\n\n${text}` }, ...rest];
  return [{ role: 'system', content: text }, ...messages];
}

/** One chat completion that must answer with exactly one tool call. */
export function callTool(
  llm: Llm,
  messages: OpenAI.ChatCompletionMessageParam[],
  tools: OpenAI.ChatCompletionTool[],
): Promise<{ name: string; args: Record<string, unknown>; usage?: OpenAI.CompletionUsage }> {
  return inLlmSpan(llm, () => callToolUntraced(llm, messages, tools));
}

async function callToolUntraced(
  llm: Llm,
  messages: OpenAI.ChatCompletionMessageParam[],
  tools: OpenAI.ChatCompletionTool[],
): Promise<{ name: string; args: Record<string, unknown>; usage?: OpenAI.CompletionUsage }> {
  let completion: OpenAI.ChatCompletion;
  let mode = llm.compat.toolMode;
  await llm.meter?.beforeCall();
  for (;;) {
    try {
      const request = toolRequest(llm, mode, messages, tools);
      completion = await riding(llm.outageWaitMs, () => llm.client.chat.completions.create(request));
      break;
    } catch (err) {
      const next = llm.compat.fixed ? undefined : fallbackMode(mode, err);
      if (next) {
        // Learnt once for this endpoint: every later call asks the way it takes.
        mode = llm.compat.toolMode = next;
        continue;
      }
      if (err instanceof OpenAI.APIError || err instanceof OpenAI.APIConnectionError) {
        throw new LlmUnavailableError(`the LLM endpoint failed after retries: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }
  const message = completion.choices[0]?.message;
  spanUsage(completion.usage, completion.model);
  await llm.meter?.record(
    callUsage(
      llm.model,
      completion.usage,
      { messages, tools },
      () => `${message?.content ?? ''}${JSON.stringify(message?.tool_calls ?? [])}`,
    ),
  );
  const call = message?.tool_calls?.find((c) => c.type === 'function');
  if (!call || call.type !== 'function') {
    // No native call: a model that wrote it as text (in any mode) is still understood.
    const written = toolCallFromText(message?.content, tools);
    return written ? { ...written, usage: completion.usage } : { name: '', args: {}, usage: completion.usage };
  }
  let args: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
    // Some servers send the arguments as an object rather than JSON text.
    args = (typeof parsed === 'string' ? JSON.parse(parsed) : parsed) as Record<string, unknown>;
  } catch {
    args =
      typeof call.function.arguments === 'object' && call.function.arguments !== null
        ? (call.function.arguments as Record<string, unknown>)
        : { __invalid: call.function.arguments };
  }
  return { name: call.function.name, args, usage: completion.usage };
}
