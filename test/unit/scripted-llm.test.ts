import OpenAI, { AuthenticationError, InternalServerError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';

const clickTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'click',
    description: 'Click an element of the page',
    parameters: {
      type: 'object',
      properties: { ref: { type: 'string' }, description: { type: 'string' } },
      required: ['ref'],
    },
  },
};

describe('scripted LLM server', () => {
  let llm: ScriptedLlm;
  let client: OpenAI;

  beforeAll(async () => {
    llm = await startScriptedLlm();
    client = new OpenAI({ apiKey: llm.apiKey, baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(async () => {
    await llm?.stop();
  });
  afterEach(() => llm.reset());

  it('answers a non-streaming request with text and usage', async () => {
    llm.enqueue({ content: 'Hello from the script.' });
    const completion = await client.chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('test-model');
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Hello from the script.' },
    });
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    const promptChars = JSON.stringify([{ role: 'user', content: 'Hi' }]).length;
    expect(completion.usage).toEqual({
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: 6,
      total_tokens: Math.ceil(promptChars / 4) + 6,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it("reports cached prompt tokens as OpenAI's prefix caching counts them: the longest prefix seen before, in 128-token blocks, none below 1,024", async () => {
    const system = (n: number) => ({ role: 'system' as const, content: 'x'.repeat(n) });
    const ask = async (messages: { role: 'system' | 'user'; content: string }[]) => {
      llm.enqueue({ content: 'ok' });
      return (await client.chat.completions.create({ model: 'test-model', messages })).usage!.prompt_tokens_details!
        .cached_tokens;
    };
    expect(await ask([system(6_000), { role: 'user', content: 'first' }])).toBe(0);
    // Shared: `[{"role":"system","content":"` and 6,000 x's, then the user message differs: 6,029 chars, 1,507 tokens.
    expect(await ask([system(6_000), { role: 'user', content: 'second' }])).toBe(1_408);
    // A shared prefix under 1,024 tokens is not cached.
    expect(await ask([system(3_000), { role: 'user', content: 'short' }])).toBe(0);
    llm.reset();
    expect(await ask([system(6_000), { role: 'user', content: 'second' }])).toBe(0);
  });

  it('answers a non-streaming request with a tool call', async () => {
    llm.enqueue({ toolCalls: [{ name: 'click', arguments: { ref: 'e14', description: 'Add the mug' } }] });
    const completion = await client.chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'Add the mug to the cart' }],
      tools: [clickTool],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') return;
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe('click');
    expect(JSON.parse(call.function.arguments)).toEqual({ ref: 'e14', description: 'Add the mug' });
    expect(llm.requests[0]!.tools).toEqual([clickTool]);
  });

  it('streams text in several chunks, with usage last when asked', async () => {
    const text = 'The cart now holds two products and the total is 30.50.';
    llm.enqueue({ content: text });
    const stream = await client.chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'Summarize' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const pieces = chunks.map((c) => c.choices[0]?.delta.content ?? '').filter(Boolean);
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(text);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage?.completion_tokens).toBe(Math.ceil(text.length / 4));
    expect(llm.requests[0]!.stream).toBe(true);
  });

  it('streams tool calls split into id/name and argument fragments', async () => {
    llm.enqueue((req) => ({
      content: 'Filling the form.',
      toolCalls: [
        { name: 'fill', arguments: { ref: 'e8', value: '{{SHOP_EMAIL}}', seenMessages: req.messages.length } },
        { name: 'click', arguments: { ref: 'e12' } },
      ],
    }));
    const stream = client.chat.completions.stream({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'You test web apps.' },
        { role: 'user', content: 'Sign in' },
      ],
      tools: [clickTool],
      stream_options: { include_usage: true },
    });
    const argumentDeltas: string[] = [];
    stream.on('chunk', (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        if (call.function?.arguments) argumentDeltas.push(call.function.arguments);
    });
    const completion = await stream.finalChatCompletion();
    expect(argumentDeltas.length).toBeGreaterThan(4);
    const message = completion.choices[0]!.message;
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.content).toBe('Filling the form.');
    expect(
      message.tool_calls!.map((c) =>
        c.type === 'function' ? [c.function.name, JSON.parse(c.function.arguments)] : c.type,
      ),
    ).toEqual([
      ['fill', { ref: 'e8', value: '{{SHOP_EMAIL}}', seenMessages: 2 }],
      ['click', { ref: 'e12' }],
    ]);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('rejects a wrong API key with 401 in OpenAI format', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-wrong', baseURL: llm.baseURL, maxRetries: 0 });
    const error = await stranger.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    expect((error as AuthenticationError).code).toBe('invalid_api_key');
    expect(llm.requests).toHaveLength(0);
  });

  it.each([
    [500, 'after the retry'],
    [429, 'after the rate limit'],
  ])('fails the next request with %i on demand and the client retries into the script', async (status, content) => {
    const retrying = new OpenAI({ apiKey: llm.apiKey, baseURL: llm.baseURL, maxRetries: 2 });
    llm.failNext(1, status);
    llm.enqueue({ content });
    const completion = await retrying.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]!.message.content).toBe(content);
    expect(llm.requests).toHaveLength(2);
  });

  it("answers the client's retry of the call it answered last alike, and stays in step", async () => {
    // What the openai client sends when a call timed out before its answer arrived (a loaded machine).
    const call = (body: object, retry: number) =>
      fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${llm.apiKey}`,
          'content-type': 'application/json',
          'x-stainless-retry-count': String(retry),
        },
        body: JSON.stringify(body),
      }).then(async (r) => ((await r.json()) as OpenAI.ChatCompletion).choices[0]!.message.content);
    llm.enqueue({ content: 'first move' }, { content: 'second move' }, { content: 'third move' });
    const asked = { model: 'm', messages: [{ role: 'user', content: 'next move?' }] };
    expect(await call(asked, 0)).toBe('first move');
    expect(await call(asked, 1)).toBe('first move');
    // The same question asked anew (not a retry) is the next call of the script.
    expect(await call(asked, 0)).toBe('second move');
    // A retry whose question differs from the last one answered is a call of its own.
    expect(await call({ ...asked, messages: [{ role: 'user', content: 'other' }] }, 1)).toBe('third move');
  });

  it('fails loudly, without client retries, when no reply is queued', async () => {
    const retrying = new OpenAI({ apiKey: llm.apiKey, baseURL: llm.baseURL, maxRetries: 2 });
    const error = await retrying.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).message).toContain('scripted LLM: no reply queued');
    expect(llm.requests).toHaveLength(1);
  });

  it('records every request and lists a model', async () => {
    llm.enqueue({ content: 'one' }, () => ({ content: 'two' }));
    await client.chat.completions.create({
      model: 'a',
      messages: [{ role: 'user', content: 'first' }],
      temperature: 0,
    });
    await client.chat.completions.create({ model: 'b', messages: [{ role: 'user', content: 'second' }] });
    expect(llm.requests.map((r) => [r.model, r.messages[0]!.content])).toEqual([
      ['a', 'first'],
      ['b', 'second'],
    ]);
    expect(llm.requests[0]!.temperature).toBe(0);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted-model']);
  });
});
