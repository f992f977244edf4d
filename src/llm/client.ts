import OpenAI from 'openai';
import type { Config } from '../config.js';
import type { UsageMeter } from '../domain/llm-usage.js';
import { callUsage } from './usage.js';

export interface Llm {
  client: OpenAI;
  model: string;
  /** Where each call's tokens are reported, and the budget asked before it (absent: not counted). */
  meter?: UsageMeter;
}

/** The same endpoint and model, with its calls reported to `meter` (one per piece of work: a burn-in, a chat turn…). */
export function metered(llm: Llm, meter: UsageMeter): Llm {
  return { ...llm, meter };
}

/** The LLM endpoint failed after the client's own retries: the run is blocked on something outside us. */
export class LlmUnavailableError extends Error {
  override name = 'LlmUnavailableError';
}

export function createLlm(config: Config['llm'], opts: { maxRetries?: number; timeoutMs?: number } = {}): Llm | undefined {
  if (!config) return undefined;
  return {
    client: new OpenAI({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: opts.maxRetries ?? 3, timeout: opts.timeoutMs ?? 120_000 }),
    model: config.model,
  };
}

/** One chat completion that must answer with exactly one tool call. */
export async function callTool(
  llm: Llm,
  messages: OpenAI.ChatCompletionMessageParam[],
  tools: OpenAI.ChatCompletionTool[],
): Promise<{ name: string; args: Record<string, unknown>; usage?: OpenAI.CompletionUsage }> {
  let completion: OpenAI.ChatCompletion;
  await llm.meter?.beforeCall();
  try {
    completion = await llm.client.chat.completions.create({
      model: llm.model,
      messages,
      tools,
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0,
    });
  } catch (err) {
    if (err instanceof OpenAI.APIError || err instanceof OpenAI.APIConnectionError) {
      throw new LlmUnavailableError(`the LLM endpoint failed after retries: ${err.message}`, { cause: err });
    }
    throw err;
  }
  const message = completion.choices[0]?.message;
  await llm.meter?.record(callUsage(llm.model, completion.usage, { messages, tools }, () => `${message?.content ?? ''}${JSON.stringify(message?.tool_calls ?? [])}`));
  const call = completion.choices[0]?.message.tool_calls?.find((c) => c.type === 'function');
  if (!call || call.type !== 'function') return { name: '', args: {}, usage: completion.usage };
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
  } catch {
    args = { __invalid: call.function.arguments };
  }
  return { name: call.function.name, args, usage: completion.usage };
}
