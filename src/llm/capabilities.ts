// What the configured OpenAI-compatible endpoint can do, asked once at startup with a few tiny requests, so that the
// agent asks for tool calls in a way the endpoint takes (src/llm/client.ts ToolMode) and `/healthz` can say what
// was found. vLLM, Ollama, llama.cpp, LM Studio and LiteLLM differ exactly here: native tool calls or none, streamed
// tool calls, `parallel_tool_calls`, JSON schema output, images, and a context far smaller than OpenAI's.
import OpenAI from 'openai';
import type { LlmCapabilities, LlmStatus } from '../domain/llm-status.js';
import type { Llm } from './client.js';
import { toolCallFromText } from './text-tool-calls.js';

const probeTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'report',
    description: 'Report a word',
    parameters: {
      type: 'object',
      properties: { word: { type: 'string' } },
      required: ['word'],
      additionalProperties: false,
    },
  },
};
const ask: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'Call the tool report with the word "ok".' },
];
// A 1x1 PNG: whether the endpoint takes an image at all, not what the model sees in it.
const pixel =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

const said = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 300);

async function attempt<T>(notes: Record<string, string>, name: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    notes[name] = said(err);
    return undefined;
  }
}

/** Probes the endpoint (about five small requests, each bounded by `timeoutMs`); never throws. */
export async function probeCapabilities(llm: Llm, opts: { timeoutMs?: number } = {}): Promise<LlmCapabilities> {
  const client = llm.client.withOptions({ maxRetries: 0, timeout: opts.timeoutMs ?? 20_000 });
  const notes: Record<string, string> = {};
  const base = { model: llm.model, temperature: 0, max_tokens: 64 };

  const native = await attempt(notes, 'tools', () =>
    client.chat.completions.create({
      ...base,
      messages: ask,
      tools: [probeTool],
      tool_choice: 'required',
      parallel_tool_calls: false,
    }),
  );
  const nativeCall =
    native?.choices[0]?.message.tool_calls?.some((c) => c.type === 'function' && c.function.name === 'report') ?? false;
  let parallelToolCallsParam: boolean | null = nativeCall ? true : null;
  let tools = nativeCall;
  if (!nativeCall) {
    // Refused for the parallel flag or tool_choice alone? Then tools work without them.
    const plain = await attempt(notes, 'tools-plain', () =>
      client.chat.completions.create({ ...base, messages: ask, tools: [probeTool] }),
    );
    tools =
      plain?.choices[0]?.message.tool_calls?.some((c) => c.type === 'function' && c.function.name === 'report') ??
      false;
    if (tools) parallelToolCallsParam = false;
    if (
      !tools &&
      toolCallFromText(plain?.choices[0]?.message.content ?? native?.choices[0]?.message.content, [probeTool])
    )
      notes.tools ??= 'the model wrote the call as text';
  }

  const streamingTools = tools
    ? ((await attempt(notes, 'streamingTools', async () => {
        const stream = await client.chat.completions.create({
          ...base,
          messages: ask,
          tools: [probeTool],
          stream: true,
        });
        let name = '';
        let args = '';
        for await (const chunk of stream) {
          for (const part of chunk.choices[0]?.delta.tool_calls ?? []) {
            name += part.function?.name ?? '';
            args +=
              typeof part.function?.arguments === 'string'
                ? part.function.arguments
                : JSON.stringify(part.function?.arguments ?? '');
          }
        }
        return name === 'report' && typeof (JSON.parse(args || '{}') as Record<string, unknown>).word === 'string';
      })) ?? false)
    : false;

  const jsonSchema =
    (await attempt(notes, 'jsonSchema', async () => {
      const answer = await client.chat.completions.create({
        ...base,
        messages: [{ role: 'user', content: 'Give the word "ok" as JSON.' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'word',
            strict: true,
            schema: {
              type: 'object',
              properties: { word: { type: 'string' } },
              required: ['word'],
              additionalProperties: false,
            },
          },
        },
      });
      const parsed: unknown = JSON.parse(answer.choices[0]?.message.content ?? '');
      return (
        typeof parsed === 'object' && parsed !== null && typeof (parsed as Record<string, unknown>).word === 'string'
      );
    })) ?? false;

  const images =
    (await attempt(notes, 'images', async () => {
      await client.chat.completions.create({
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What colour is this pixel? One word.' },
              { type: 'image_url', image_url: { url: pixel } },
            ],
          },
        ],
      });
      return true;
    })) ?? false;

  return {
    model: llm.model,
    tools,
    streamingTools,
    parallelToolCallsParam,
    jsonSchema,
    images,
    contextTokens: (await attempt(notes, 'contextTokens', () => contextTokensOf(client, llm.model))) ?? null,
    toolMode: tools ? (parallelToolCallsParam ? 'native' : 'native-plain') : 'text',
    probedAt: new Date().toISOString(),
    notes,
  };
}

// Where each server says how long its context is: vLLM `max_model_len`, llama.cpp `meta.n_ctx_train` (and its
// /props `n_ctx`), LM Studio `max_context_length`, LiteLLM `max_input_tokens`, others `context_length`/`context_window`.
const contextFields = [
  'max_model_len',
  'context_length',
  'context_window',
  'max_context_length',
  'max_input_tokens',
  'n_ctx',
  'n_ctx_train',
];

function findContext(value: unknown, depth = 0): number | null {
  if (typeof value !== 'object' || value === null || depth > 3) return null;
  for (const [key, v] of Object.entries(value)) {
    if (contextFields.includes(key) && typeof v === 'number' && v > 0) return v;
  }
  for (const v of Object.values(value)) {
    const found = findContext(v, depth + 1);
    if (found) return found;
  }
  return null;
}

async function contextTokensOf(client: OpenAI, model: string): Promise<number | null> {
  const list = (await client.get('/models')) as { data?: { id?: string }[] };
  const entry = list.data?.find((m) => m.id === model) ?? (list.data?.length === 1 ? list.data[0] : undefined);
  return findContext(entry);
}

// One probe per endpoint and model in a process (`proctor dev` runs the API and the worker together).
const probes = new Map<string, Promise<LlmCapabilities>>();
const found = new Map<string, LlmCapabilities>();

/**
 * Probes the endpoint in the background unless the tool mode was set by hand (PROCTOR_LLM_TOOL_MODE), adopts the
 * mode it finds, and returns what there is to say about it at any moment.
 */
export function watchCapabilities(llm: Llm | undefined, onFound?: (c: LlmCapabilities) => void): () => LlmStatus {
  if (!llm) return () => ({ configured: false });
  const key = `${llm.client.baseURL}|${llm.model}`;
  if (!llm.compat.fixed && !probes.has(key)) {
    const probe = probeCapabilities(llm).then((c) => {
      found.set(key, c);
      onFound?.(c);
      return c;
    });
    probes.set(key, probe);
  }
  void probes.get(key)?.then((c) => {
    if (!llm.compat.fixed) llm.compat.toolMode = c.toolMode;
  });
  return () => ({
    configured: true,
    model: llm.model,
    toolMode: llm.compat.toolMode,
    probing: !llm.compat.fixed && !found.has(key),
    capabilities: found.get(key) ?? null,
    fixedMode: llm.compat.fixed,
  });
}
