// An OpenAI-compatible chat-completions server that answers from a script, so tests run the real `openai`
// client over real HTTP (streaming and not) without a model. Nothing in src/ knows it is talking to this.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
} from 'openai/resources/chat/completions';
import { listenOnFreePort } from './net.js';

export type ChatRequest = ChatCompletionCreateParams;

export type ScriptedReply = (
  { content: string } | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>; content?: string }
) & {
  /** Streaming only: pause this long before each text fragment (a model producing tokens at a fixed rate). */
  fragmentDelayMs?: number;
};

export type ScriptedStep = ScriptedReply | ((req: ChatRequest) => ScriptedReply);

export interface ScriptedLlm {
  /** What OPENAI_BASE_URL would be, e.g. `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  /** Requests without `Authorization: Bearer <apiKey>` get 401 in OpenAI's error format. */
  apiKey: string;
  /** Queue replies; each incoming request consumes the next one. A function reply gets the parsed request body. */
  enqueue(...replies: ScriptedStep[]): void;
  /** Every authorized chat-completions request received, parsed, including those answered with an error. */
  requests: ChatRequest[];
  /** Default pause before each streamed text fragment (0: as fast as possible). */
  setFragmentDelay(ms: number): void;
  /** Make the next `count` requests fail with this HTTP status (e.g. 500 / 429) before the script continues. */
  failNext(count: number, status: number): void;
  /**
   * `reported` (default): answers carry `usage` (streams when asked with `stream_options.include_usage`), with cached
   * prompt tokens as OpenAI's automatic prompt caching counts them (see `promptCache`); `none`: no `usage` at all,
   * as some OpenAI-compatible servers answer.
   */
  setUsageMode(mode: 'reported' | 'none'): void;
  /** The `usage` of every answer that carried one, in order: what the server says it spent. */
  usageSent: ScriptedUsage[];
  /**
   * How the server departs from OpenAI, as OpenAI-compatible servers documentedly do (default `openai`):
   * - `no-native-tools`: Ollama with a model whose template has no tools: 400 "<model> does not support tools"
   *   (github.com/ollama/ollama/issues/6027), images refused too; a scripted call is written as JSON in a fence;
   * - `llamacpp-no-jinja`: llama.cpp's server started without --jinja: 500 "tools param requires --jinja flag"
   *   (github.com/containers/ramalama/issues/988; "Unsupported param: tools" in ggml-org/llama.cpp#10920);
   * - `text-tool-calls`: vLLM serving a Hermes-style model without --tool-call-parser: `tools` taken, the call left
   *   in the content in <tool_call> tags (docs.vllm.ai tool_calling, hermes parser; anomalyco/opencode#1122);
   * - `no-parallel-param`: a server that refuses `parallel_tool_calls`/`tool_choice` (vLLM before 0.8.3 had no
   *   tool_choice "required": docs.vllm.ai/en/v0.8.4/features/tool_calling.html), 400 unrecognized argument;
   * - `odd-stream`: streamed tool calls without `index`, the name in two pieces, arguments 3 characters at a time
   *   (what OpenAI's spec leaves to the server; a shape guarded against, not one server's).
   */
  setDialect(dialect: ScriptedDialect): void;
  /** Extra fields of the model's entry in GET /v1/models (e.g. vLLM's `max_model_len`). */
  setModelInfo(info: Record<string, unknown>): void;
  reset(): void;
  stop(): Promise<void>;
}

export type ScriptedDialect =
  'openai' | 'no-native-tools' | 'llamacpp-no-jinja' | 'text-tool-calls' | 'no-parallel-param' | 'odd-stream';

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

const apiKey = 'sk-scripted-test-key';
const modelId = 'scripted-model';

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

// OpenAI's automatic prompt caching (platform.openai.com/docs/guides/prompt-caching): a request reuses the longest
// prefix it shares with an earlier request, counted in 128-token blocks, and nothing below 1,024 tokens. The prompt
// is read as OpenAI lays it out, the tools first, then the messages; tokens are chars/4, as `prompt_tokens` here.
const cacheMinTokens = 1_024;
const cacheBlockTokens = 128;
/** Earlier prompts kept for prefix matching (the tests' conversations are far shorter). */
const cacheEntries = 2_000;

function promptCache() {
  const seen: string[] = [];
  const commonPrefix = (a: string, b: string): number => {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    return i;
  };
  return {
    /** The cached prompt tokens of this request, and the request remembered for the next ones. */
    cachedTokens(request: ChatRequest): number {
      const text = (request.tools ? JSON.stringify(request.tools) : '') + JSON.stringify(request.messages);
      const shared = seen.reduce((best, earlier) => Math.max(best, commonPrefix(text, earlier)), 0);
      seen.push(text);
      if (seen.length > cacheEntries) seen.shift();
      const tokens = Math.floor(shared / 4);
      return tokens < cacheMinTokens ? 0 : Math.floor(tokens / cacheBlockTokens) * cacheBlockTokens;
    },
    clear() {
      seen.length = 0;
    },
  };
}

// The fragments a real stream would carry: roughly a token (a word and its trailing space) of text,
// a few characters of tool arguments.
function textFragments(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
function argumentFragments(args: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += size) out.push(args.slice(i, i + size));
  return out;
}

function sendError(
  res: ServerResponse,
  status: number,
  error: { message: string; type: string; code?: string | null },
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { param: null, code: null, ...error } }));
}

function failureFor(status: number): { message: string; type: string; code?: string } {
  if (status === 429)
    return { message: 'scripted LLM: rate limit reached', type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500)
    return { message: 'scripted LLM: the server had an error while processing your request', type: 'server_error' };
  return { message: `scripted LLM: failing with status ${status}`, type: 'invalid_request_error' };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startScriptedLlm(): Promise<ScriptedLlm> {
  const queue: ScriptedStep[] = [];
  const requests: ChatRequest[] = [];
  const failures: number[] = [];
  let lastAnswered: { body: string; step: ScriptedStep } | undefined;
  let completionCount = 0;
  let fragmentDelayMs = 0;
  let usageMode: 'reported' | 'none' = 'reported';
  const usageSent: ScriptedUsage[] = [];
  let dialect: ScriptedDialect = 'openai';
  let modelInfo: Record<string, unknown> = {};
  const cache = promptCache();

  /** What a server of the dialect refuses outright, before any reply is taken from the script. */
  function refusal(request: ChatRequest): { status: number; message: string } | undefined {
    const noTools = dialect === 'no-native-tools' || dialect === 'llamacpp-no-jinja';
    if (dialect === 'no-native-tools' && request.tools?.length)
      return { status: 400, message: `registry.ollama.ai/library/${request.model} does not support tools` };
    if (dialect === 'llamacpp-no-jinja' && request.tools?.length)
      return { status: 500, message: 'tools param requires --jinja flag' };
    if (noTools && JSON.stringify(request.messages).includes('"image_url"'))
      return { status: 400, message: `scripted LLM: model ${request.model} does not support images` };
    if (
      dialect === 'no-parallel-param' &&
      (request.parallel_tool_calls !== undefined || request.tool_choice !== undefined)
    ) {
      return {
        status: 400,
        message: `scripted LLM: Unrecognized request argument supplied: ${request.parallel_tool_calls !== undefined ? 'parallel_tool_calls' : 'tool_choice'}`,
      };
    }
    return undefined;
  }

  /** A scripted reply as a server of the dialect gives it. */
  function inDialect(reply: ScriptedReply): ScriptedReply {
    if (!('toolCalls' in reply) || !reply.toolCalls.length) return reply;
    const written = reply.toolCalls.map((c) => JSON.stringify({ name: c.name, arguments: c.arguments }));
    if (dialect === 'no-native-tools' || dialect === 'llamacpp-no-jinja')
      return { ...reply, toolCalls: [], content: `\`\`\`json\n${written[0]}\n\`\`\`` };
    if (dialect === 'text-tool-calls')
      return { ...reply, toolCalls: [], content: written.map((w) => `<tool_call>\n${w}\n</tool_call>`).join('\n') };
    return reply;
  }

  async function answer(request: ChatRequest, reply: ScriptedReply, res: ServerResponse): Promise<void> {
    completionCount += 1;
    const id = `chatcmpl-scripted-${completionCount}`;
    const created = Math.floor(Date.now() / 1000);
    const content = 'content' in reply && reply.content !== undefined ? reply.content : null;
    const toolCalls: ToolCall[] = ('toolCalls' in reply ? reply.toolCalls : []).map((call, i) => ({
      id: `call_scripted_${completionCount}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    const finishReason = toolCalls.length ? 'tool_calls' : 'stop';
    const promptTokens = estimateTokens(
      JSON.stringify(request.messages) + (request.tools ? JSON.stringify(request.tools) : ''),
    );
    const completionTokens = estimateTokens((content ?? '') + (toolCalls.length ? JSON.stringify(toolCalls) : ''));
    const cachedTokens = Math.min(cache.cachedTokens(request), promptTokens);
    const usage: ScriptedUsage | undefined =
      usageMode === 'none'
        ? undefined
        : {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
            prompt_tokens_details: { cached_tokens: cachedTokens },
          };

    if (!request.stream) {
      const completion: ChatCompletion = {
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        system_fingerprint: 'fp_scripted',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content,
              refusal: null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        ...(usage && { usage }),
      };
      if (usage) usageSent.push(usage);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion));
      return;
    }

    const includeUsage = usage !== undefined && request.stream_options?.include_usage === true;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (choices: ChatCompletionChunk['choices'], extra: Partial<ChatCompletionChunk> = {}): void => {
      const chunk: ChatCompletionChunk = {
        id,
        object: 'chat.completion.chunk',
        created,
        model: request.model,
        system_fingerprint: 'fp_scripted',
        choices,
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    const delta = (
      d: ChatCompletionChunk.Choice.Delta,
      finish: ChatCompletionChunk.Choice['finish_reason'] = null,
    ): void => send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

    // The way OpenAI streams: a role chunk, text fragments, then per tool call a chunk with its id and name
    // followed by chunks of argument text, an empty delta with the finish reason, usage on its own, [DONE].
    delta({ role: 'assistant', content: toolCalls.length && content === null ? null : '', refusal: null });
    const pause = reply.fragmentDelayMs ?? fragmentDelayMs;
    for (const fragment of textFragments(content ?? '')) {
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      // The client went away (cancelled, or its worker was killed): stop like a real endpoint would.
      if (res.destroyed || res.writableEnded) return;
      delta({ content: fragment });
    }
    toolCalls.forEach((call, index) => {
      if (dialect === 'odd-stream') {
        // No index anywhere; the id only on the first fragment; the name in two pieces.
        const half = Math.ceil(call.function.name.length / 2);
        const noIndex = (part: object) => part as ChatCompletionChunk.Choice.Delta.ToolCall;
        delta({
          tool_calls: [
            noIndex({ id: call.id, type: 'function', function: { name: call.function.name.slice(0, half) } }),
          ],
        });
        delta({ tool_calls: [noIndex({ function: { name: call.function.name.slice(half) } })] });
        for (const fragment of argumentFragments(call.function.arguments, 3))
          delta({ tool_calls: [noIndex({ function: { arguments: fragment } })] });
        return;
      }
      delta({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      });
      for (const fragment of argumentFragments(call.function.arguments))
        delta({ tool_calls: [{ index, function: { arguments: fragment } }] });
    });
    delta({}, finishReason);
    if (includeUsage && usage) {
      usageSent.push(usage);
      send([], { usage });
    }
    res.end('data: [DONE]\n\n');
  }

  async function chatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let request: ChatRequest;
    let body: string;
    try {
      body = await readBody(req);
      request = JSON.parse(body) as ChatRequest;
    } catch {
      return sendError(res, 400, {
        message: 'scripted LLM: the body is not valid JSON',
        type: 'invalid_request_error',
      });
    }
    if (
      typeof request !== 'object' ||
      request === null ||
      typeof request.model !== 'string' ||
      !Array.isArray(request.messages)
    ) {
      return sendError(res, 400, {
        message: 'scripted LLM: `model` and `messages` are required',
        type: 'invalid_request_error',
      });
    }
    requests.push(request);

    const failStatus = failures.shift();
    if (failStatus !== undefined) {
      // Its retry is a retry of this failed call, not of the one answered before.
      lastAnswered = undefined;
      // A short retry-after keeps the client's retries fast without changing whether it retries.
      return sendError(res, failStatus, failureFor(failStatus), { 'retry-after-ms': '20' });
    }
    // An unexpected call must fail the test at once, not after the client's retries.
    const noRetry = { 'x-should-retry': 'false' };
    const refused = refusal(request);
    if (refused)
      return sendError(
        res,
        refused.status,
        { message: refused.message, type: refused.status === 500 ? 'server_error' : 'invalid_request_error' },
        noRetry,
      );
    // The client's own retry of the call answered last (its answer did not reach it in time, on a loaded machine)
    // gets that answer again: a model asked the same again answers alike, and the script stays in step.
    const retried = Number(req.headers['x-stainless-retry-count'] ?? 0) > 0 && lastAnswered?.body === body;
    const step = retried ? lastAnswered?.step : queue.shift();
    if (step !== undefined) lastAnswered = { body, step };
    if (step === undefined)
      return sendError(res, 500, { message: 'scripted LLM: no reply queued', type: 'server_error' }, noRetry);
    let reply: ScriptedReply;
    try {
      reply = typeof step === 'function' ? step(request) : step;
    } catch (err) {
      return sendError(
        res,
        500,
        { message: `scripted LLM: the reply function threw: ${String(err)}`, type: 'server_error' },
        noRetry,
      );
    }
    await answer(request, inDialect(reply), res);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      await readBody(req);
      return sendError(res, 401, {
        message: 'Incorrect API key provided.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
    }
    const path = new URL(req.url ?? '/', 'http://scripted.invalid').pathname;
    if (req.method === 'POST' && path === '/v1/chat/completions') return chatCompletion(req, res);
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data: [{ id: modelId, object: 'model', created: 0, owned_by: 'proctor-tests', ...modelInfo }],
        }),
      );
      return;
    }
    await readBody(req);
    sendError(res, 404, {
      message: `scripted LLM: unknown route ${req.method} ${path}`,
      type: 'invalid_request_error',
      code: 'unknown_url',
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, { message: `scripted LLM: ${String(err)}`, type: 'server_error' });
      else res.destroy();
    });
  });
  const port = await listenOnFreePort(server);

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    usageSent,
    setUsageMode(mode) {
      usageMode = mode;
    },
    setDialect(next) {
      dialect = next;
    },
    setModelInfo(info) {
      modelInfo = info;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    setFragmentDelay(ms) {
      fragmentDelayMs = ms;
    },
    failNext(count, status) {
      for (let i = 0; i < count; i++) failures.push(status);
    },
    reset() {
      queue.length = 0;
      lastAnswered = undefined;
      requests.length = 0;
      failures.length = 0;
      fragmentDelayMs = 0;
      usageMode = 'reported';
      usageSent.length = 0;
      dialect = 'openai';
      modelInfo = {};
      cache.clear();
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
