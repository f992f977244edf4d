import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { createApp } from '../../src/api/app.js';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import { RunValues } from '../../src/domain/run-values.js';
import { runAgent } from '../../src/llm/agent.js';
import { probeCapabilities, watchCapabilities } from '../../src/llm/capabilities.js';
import { streamChat } from '../../src/llm/chat.js';
import { callTool, createLlm, type Llm } from '../../src/llm/client.js';
import { toolCallFromText } from '../../src/llm/text-tool-calls.js';
import { useAgentRig } from '../support/agent-rig.js';
import { llmFor } from '../../activities/llm-usage.js';
import { loadConfig } from '../../src/config.js';
import { refOf, tool } from '../support/agent-script.js';
import { createApiContext, type ApiContext } from '../support/app-context.js';
import { startScriptedLlm, type ChatRequest, type ScriptedDialect, type ScriptedLlm } from '../support/scripted-llm.js';

// OpenAI-compatible servers as users run them (vLLM, Ollama, llama.cpp, LM Studio, LiteLLM) differ in documented
// ways: no native tool calls (the call comes as JSON text), tool-call fragments streamed oddly, parameters refused,
// a context of their own. The scripted server plays each dialect over real HTTP; the real `openai` client talks to it.

const noteTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'save_note',
    description: 'Save a note',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' }, pinned: { type: 'boolean' } },
      required: ['text'],
    },
  },
};
const tools = [noteTool, { ...noteTool, function: { ...noteTool.function, name: 'done' } }];

describe('tool calls written as text', () => {
  it.each([
    ['bare JSON', '{"name": "save_note", "arguments": {"text": "milk"}}'],
    [
      'a ```json fence with prose around it',
      'Sure, here it is:\n```json\n{"name":"save_note","arguments":{"text":"milk"}}\n```\nDone.',
    ],
    ['Hermes <tool_call> tags', '<tool_call>\n{"name": "save_note", "arguments": {"text": "milk"}}\n</tool_call>'],
    ['{tool, args}', '{"tool": "save_note", "args": {"text": "milk"}}'],
    [
      '{function: {name, arguments as a string}}',
      '{"function": {"name": "save_note", "arguments": "{\\"text\\": \\"milk\\"}"}}',
    ],
    ['{name, parameters}', '{"name": "save_note", "parameters": {"text": "milk"}}'],
    [
      'a tool_calls array',
      '{"tool_calls": [{"type": "function", "function": {"name": "save_note", "arguments": "{\\"text\\":\\"milk\\"}"}}]}',
    ],
    [
      'braces inside strings, an unknown tool first',
      '{"name": "erase_all", "arguments": {}} then {"name": "save_note", "arguments": {"text": "milk"}, "note": "a } in a string {"}',
    ],
  ])('%s', (_, text) => {
    expect(toolCallFromText(text, tools)).toEqual({ name: 'save_note', args: { text: 'milk' } });
  });

  it.each([
    ['no JSON', 'I saved the note.'],
    ['an unknown tool', '{"name": "erase_all", "arguments": {}}'],
    ['broken JSON', '{"name": "save_note", "arguments": {"text": '],
    ['arguments that are not an object', '{"name": "save_note", "arguments": [1, 2]}'],
  ])('nothing from %s', (_, text) => {
    expect(toolCallFromText(text, tools)).toBeUndefined();
  });
});

describe('each dialect of OpenAI-compatible server', () => {
  const rig = useAgentRig();
  let llm: ScriptedLlm;
  let pool: BrowserPool;
  const client = (): Llm =>
    createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted' }, { maxRetries: 0 })!;
  beforeEach(() => {
    ({ llm, pool } = rig);
    llm.reset();
  });

  const save = tool('save_note', { text: 'milk' });

  it.each([
    ['openai', 'native', 1],
    ['no-parallel-param', 'native-plain', 2],
    ['no-native-tools', 'text', 2],
    ['llamacpp-no-jinja', 'text', 2],
    ['text-tool-calls', 'native', 1],
    ['odd-stream', 'native', 1],
  ] as [ScriptedDialect, string, number][])(
    "%s: the agent's call is understood (mode %s, %i request(s) the first time, 1 after)",
    async (dialect, mode, firstRequests) => {
      llm.setDialect(dialect);
      llm.enqueue(save, save);
      const agent = client();
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You keep notes.' },
        { role: 'user', content: 'Note milk.' },
      ];
      expect(await callTool(agent, messages, tools)).toMatchObject({ name: 'save_note', args: { text: 'milk' } });
      expect(llm.requests).toHaveLength(firstRequests);
      expect(agent.compat.toolMode).toBe(mode);
      expect(await callTool(agent, messages, tools)).toMatchObject({ name: 'save_note', args: { text: 'milk' } });
      expect(llm.requests).toHaveLength(firstRequests + 1);
      const last = llm.requests.at(-1)!;
      if (mode === 'text') {
        expect(last.tools).toBeUndefined();
        expect(JSON.stringify(last.messages[0])).toContain('type save_note = (_: {');
      } else expect(last.tools).toHaveLength(2);
    },
  );

  it('a model per role (PROCTOR_LLM_MODEL_<ROLE>): each piece of work asks its own model; another model learns its own tool mode', async () => {
    const config = loadConfig('dev', {
      OPENAI_API_KEY: llm.apiKey,
      OPENAI_BASE_URL: llm.baseURL,
      PROCTOR_LLM_MODEL: 'main',
      PROCTOR_LLM_MODEL_HEAL: 'small',
      PROCTOR_LLM_MODEL_REVIEW: 'strong',
    });
    expect(config.llm?.models).toEqual({ heal: 'small', review: 'strong' });
    const endpoint = createLlm(config.llm, { maxRetries: 0 })!;
    const purposes = ['burn_in', 'heal', 'review', 'chat'] as const;
    for (const purpose of purposes) {
      llm.enqueue(save);
      await callTool(
        llmFor({}, endpoint, { projectId: 'p', purpose }),
        [{ role: 'user', content: 'Note milk.' }],
        tools,
      );
    }
    expect(llm.requests.map((r) => r.model)).toEqual(['main', 'small', 'strong', 'main']);
    // The small model's server refuses parallel_tool_calls: its mode changes, the main model's does not.
    llm.setDialect('no-parallel-param');
    llm.enqueue(save, save);
    await callTool(
      llmFor({}, endpoint, { projectId: 'p', purpose: 'heal' }),
      [{ role: 'user', content: 'Note milk.' }],
      tools,
    );
    expect(llmFor({}, endpoint, { projectId: 'p', purpose: 'heal' }).compat.toolMode).toBe('native-plain');
    expect(endpoint.compat.toolMode).toBe('native');
  });

  it('a server that ignores parallel_tool_calls and sends two calls: the agent takes the first', async () => {
    llm.enqueue({
      toolCalls: [
        { name: 'save_note', arguments: { text: 'first' } },
        { name: 'save_note', arguments: { text: 'second' } },
      ],
    });
    expect(await callTool(client(), [{ role: 'user', content: 'Note it.' }], tools)).toMatchObject({
      args: { text: 'first' },
    });
  });

  it.each(['odd-stream', 'no-native-tools', 'llamacpp-no-jinja', 'text-tool-calls'] as ScriptedDialect[])(
    '%s: a streamed chat turn gets the tool call and never shows its JSON as text; plain text still streams',
    async (dialect) => {
      llm.setDialect(dialect);
      const chat = client();
      const shown: string[] = [];
      llm.enqueue(
        { toolCalls: [{ name: 'save_note', arguments: { text: 'milk and "bread" {x}', pinned: true } }] },
        { content: 'Saved your note about milk.' },
      );
      const first = await streamChat(chat, [{ role: 'user', content: 'Note milk.' }], {
        tools: tools.map((t) => (t.type === 'function' ? t.function : t)) as never,
        onText: (d) => shown.push(d),
      });
      expect(first.toolCalls).toEqual([
        expect.objectContaining({ name: 'save_note', args: { text: 'milk and "bread" {x}', pinned: true } }),
      ]);
      expect(shown.join('')).toBe('');
      const exchange: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Note milk.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: first.toolCalls[0]!.id,
              type: 'function',
              function: { name: 'save_note', arguments: JSON.stringify(first.toolCalls[0]!.args) },
            },
          ],
        },
        { role: 'tool', tool_call_id: first.toolCalls[0]!.id, content: 'saved' },
      ];
      const second = await streamChat(chat, exchange, {
        tools: tools.map((t) => (t.type === 'function' ? t.function : t)) as never,
        onText: (d) => shown.push(d),
      });
      expect(second).toEqual({ text: 'Saved your note about milk.', toolCalls: [] });
      expect(shown.join('')).toBe('Saved your note about milk.');
      if (dialect === 'no-native-tools' || dialect === 'llamacpp-no-jinja') {
        // Such a server refuses the tool role: the exchange went as text.
        expect(JSON.stringify(llm.requests.at(-1)!.messages)).not.toContain('"role":"tool"');
        expect(JSON.stringify(llm.requests.at(-1)!.messages)).toContain('Tool result');
      }
    },
  );

  it.each([
    [
      'openai',
      {
        tools: true,
        streamingTools: true,
        parallelToolCallsParam: true,
        jsonSchema: true,
        images: true,
        contextTokens: 32768,
        toolMode: 'native',
      },
    ],
    [
      'no-parallel-param',
      { tools: true, streamingTools: true, parallelToolCallsParam: false, toolMode: 'native-plain' },
    ],
    [
      'no-native-tools',
      {
        tools: false,
        streamingTools: false,
        parallelToolCallsParam: null,
        jsonSchema: true,
        images: false,
        toolMode: 'text',
      },
    ],
  ] as [ScriptedDialect, object][])('the probe of a %s server finds what it supports', async (dialect, expected) => {
    llm.setDialect(dialect);
    llm.setModelInfo({ max_model_len: 32768 });
    const report = (req: ChatRequest) =>
      req.response_format
        ? { content: '{"word": "ok"}' }
        : req.tools
          ? tool('report', { word: 'ok' })
          : { content: 'white' };
    llm.enqueue(...Array.from({ length: 6 }, () => report));
    const found = await probeCapabilities(client(), { timeoutMs: 10_000 });
    expect(found).toMatchObject({ model: 'scripted', ...expected });
    if (dialect === 'no-native-tools') expect(found.notes.tools).toMatch(/does not support tools/);
  });

  it('any other server error is not taken for a refusal of tools: it fails the call, the mode stays', async () => {
    llm.failNext(1, 500);
    const agent = client();
    await expect(callTool(agent, [{ role: 'user', content: 'Note milk.' }], tools)).rejects.toThrow(
      /LLM endpoint failed/,
    );
    expect(agent.compat.toolMode).toBe('native');
  });

  it('a whole burn-in records its steps on a server without native tools', async () => {
    llm.setDialect('no-native-tools');
    llm.enqueue(
      (r) => tool('fill', { ref: refOf(r, 'textbox "Note"'), value: 'milk', description: 'Type the note' }),
      (r) => tool('click', { ref: refOf(r, 'button "Save"'), description: 'Save' }),
      () => tool('assert_text', { text: 'Saved: milk', description: 'The note is saved' }),
      () => tool('done', { summary: 'Saved' }),
    );
    const result = await pool.withContext({}, async ({ page }) => {
      await page.setContent(
        '<main><label>Note <input id="n"></label><button onclick="document.querySelector(\'#saved\').textContent=\'Saved: \'+document.querySelector(\'#n\').value">Save</button><p id="saved"></p></main>',
      );
      return runAgent(
        page,
        { applicationName: 'Notes', goal: 'Save the note milk', expectedResult: 'Saved: milk', configNames: [] },
        { llm: client(), baseUrl: 'http://127.0.0.1/', values: new RunValues(), maxSteps: 10, timeoutMs: 5_000 },
      );
    });
    expect(result).toMatchObject({ status: 'COMPLETED' });
    expect(result.steps.map((s) => [s.action, s.value])).toEqual([
      ['fill', 'milk'],
      ['click', undefined],
      ['assert_text', 'Saved: milk'],
    ]);
    // The first request was refused for its tools; every later one went without.
    expect(llm.requests.filter((r) => r.tools).length).toBe(1);
  });
});

describe('/healthz reports the LLM', () => {
  let llm: ScriptedLlm;
  let api: ApiContext;
  beforeAll(async () => {
    [llm, api] = await Promise.all([startScriptedLlm(), createApiContext('pglite')]);
  });
  afterAll(async () => {
    await api?.close();
    await llm?.stop();
  });

  it('as probed at startup, the mode it adopted, or that none is configured', async () => {
    llm.setDialect('no-native-tools');
    llm.setModelInfo({ context_length: 8192 });
    llm.enqueue(
      ...Array.from(
        { length: 6 },
        () => (req: ChatRequest) => (req.response_format ? { content: '{"word": "ok"}' } : { content: 'white' }),
      ),
    );
    const agent = createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'healthz-model' }, { maxRetries: 0 })!;
    const status = watchCapabilities(agent);
    const health = async () =>
      (await createApp({ ...api.deps, llm: status }).request('/healthz')).json() as Promise<any>;
    await expect.poll(async () => (await health()).llm.probing, { timeout: 15_000 }).toBe(false);
    expect((await health()).llm).toMatchObject({
      configured: true,
      model: 'healthz-model',
      toolMode: 'text',
      fixedMode: false,
      capabilities: { tools: false, contextTokens: 8192 },
    });
    expect(agent.compat.toolMode).toBe('text');
    const fixed = createLlm(
      { apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'fixed' },
      { toolMode: 'native-plain' },
    )!;
    const before = llm.requests.length;
    expect(
      (await (await createApp({ ...api.deps, llm: watchCapabilities(fixed) }).request('/healthz')).json()).llm,
    ).toEqual({
      configured: true,
      model: 'fixed',
      toolMode: 'native-plain',
      probing: false,
      capabilities: null,
      fixedMode: true,
    });
    expect(llm.requests.length).toBe(before);
    expect(
      (await (await createApp({ ...api.deps, llm: watchCapabilities(undefined) }).request('/healthz')).json()).llm,
    ).toEqual({ configured: false });
  });
});
