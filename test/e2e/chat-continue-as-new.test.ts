import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { loadPrograms } from '../../src/programs.js';
import { lastPrompt } from '../support/agent-script.js';
import { pollChat } from '../support/chat-polling.js';
import { waitFor } from '../support/net.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, type Stack } from '../support/worker-context.js';

// Temporal suggests continue-as-new after 4K events by default; this server suggests it after 20, so a
// conversation of a few turns crosses it while messages are still waiting.
describe('a long conversation continues as new', () => {
  let temporal: DevServer;
  let llm: ScriptedLlm;
  let stack: Stack;

  beforeAll(async () => {
    [temporal, llm] = await Promise.all([
      startDevServer({
        executable: loadPrograms().temporal,
        extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=20'],
      }),
      startScriptedLlm(),
    ]);
    stack = await startStack({ llm, temporalAddress: temporal.address });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([temporal?.stop(), llm?.stop()]);
  });

  it('carries the waiting messages over and answers each once, in order', async () => {
    // The first reply streams slowly, so the other four are waiting when the history grows past the limit.
    llm.enqueue(
      { content: 'answer 1, slowly', fragmentDelayMs: 150 },
      ...[2, 3, 4, 5].map((i) => ({ content: `answer ${i}` })),
    );
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'message 1' })).body;
    for (const i of [2, 3, 4, 5])
      expect((await stack.call('POST', `/v1/chat/${shortId}`, { message: `message ${i}` })).status).toBe(202);
    await pollChat(stack, shortId, { timeoutMs: 60_000 });

    const all = (await stack.call('GET', `/v1/chat/${shortId}?limit=20`)).body.messages.reverse();
    expect(all.map((m: any) => [m.role, m.status, m.text])).toEqual(
      [1, 2, 3, 4, 5].flatMap((i) => [
        ['user', 'COMPLETED', `message ${i}`],
        ['assistant', 'COMPLETED', i === 1 ? 'answer 1, slowly' : `answer ${i}`],
      ]),
    );
    // One model call per message, in order: no turn was lost or answered twice across the runs.
    expect(llm.requests.map(lastPrompt)).toEqual([1, 2, 3, 4, 5].map((i) => `message ${i}`));

    // The conversation's workflow did continue as new on the way, and one run of it is still open.
    const client = await stack.temporal.get();
    let statuses: string[] = [];
    await waitFor(
      async () => {
        statuses = [];
        for await (const run of client.workflow.list({ query: `WorkflowId = "chat:${shortId}"` }))
          statuses.push(run.status.name);
        return statuses.includes('CONTINUED_AS_NEW') && statuses.filter((s) => s === 'RUNNING').length === 1;
      },
      10_000,
      'the conversation to show a continued-as-new run',
    ).catch((err: Error) => {
      throw new Error(`${err.message}; runs: ${statuses.join(', ')}`);
    });
  }, 120_000);
});
