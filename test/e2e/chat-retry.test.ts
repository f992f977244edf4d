// A chat turn's create_test_case whose activity committed its write but whose completion was lost (the worker
// died, the network dropped the answer): Temporal retries the activity, and the retry must answer with the
// test case the first attempt wrote, not create a second one with a new id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tool } from '../support/agent-script.js';
import { pollChat } from '../support/chat-polling.js';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startScriptedLlm, type ChatRequest, type ScriptedLlm } from '../support/scripted-llm.js';
import { startStack, type Stack } from '../support/worker-context.js';

const lastToolResult = (req: ChatRequest) => {
  const message = [...req.messages].reverse().find((m) => m.role === 'tool');
  return typeof message?.content === 'string' ? message.content : '';
};

describe('a retried create_test_case activity of a chat turn', () => {
  let llm: ScriptedLlm;
  let fixtures: FixtureApps;
  let stack: Stack;
  let appShortId: string;
  const attempts: { testCaseId?: string }[] = [];

  beforeAll(async () => {
    [llm, fixtures] = await Promise.all([startScriptedLlm(), startFixtureApps()]);
    stack = await startStack({
      llm,
      substitute: (activities) => ({
        ...activities,
        // The first attempt does all its work, then its completion is lost; later attempts are untouched.
        async createChatTestCase(input) {
          const outcome = await activities.createChatTestCase(input);
          attempts.push({ testCaseId: outcome.ok ? outcome.testCaseId : undefined });
          if (attempts.length === 1) throw new Error('connection to Temporal lost before the completion was sent');
          return outcome;
        },
      }),
    });
    appShortId = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    await stack.call('POST', `/v1/applications/${appShortId}/environments`, {
      name: 'Local',
      url: `${fixtures.url}/todo/`,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([llm?.stop(), fixtures?.stop()]);
  });

  it('answers with the test case the first attempt wrote: one test case, one burn-in, the same id', async () => {
    let reported = '';
    llm.enqueue(
      {
        toolCalls: [
          {
            name: 'create_test_case',
            arguments: { applicationShortId: appShortId, name: 'Search mugs', goal: 'Search for mugs' },
          },
        ],
      },
      // The burn-in's agent gives up at once: what matters here is which test case it ran for.
      tool('fail', { reason: 'scripted: nothing to do' }),
      (req) => {
        reported = /\(id ([0-9a-f-]{36})\)/.exec(lastToolResult(req))?.[1] ?? 'none';
        return { content: `Created ${reported}.` };
      },
    );
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'Create a test that searches for mugs.' }))
      .body;
    const reply = (await pollChat(stack, shortId, { timeoutMs: 90_000 })).final.messages[0];
    expect(reply.status, reply.text).toBe('COMPLETED');

    expect(attempts.length).toBe(2);
    expect(attempts[1]!.testCaseId).toBe(attempts[0]!.testCaseId);
    expect(reported).toBe(attempts[0]!.testCaseId);
    const listed = (await stack.call('GET', `/v1/test-cases?applicationShortId=${appShortId}`)).body;
    expect(listed.testCases.map((t: any) => [t.id, t.name])).toEqual([[reported, 'Search mugs']]);
    const shown = (await stack.call('GET', `/v1/test-cases/${reported}`)).body;
    expect(shown).toMatchObject({
      generationStatus: 'FAILED',
      failureReason: expect.stringMatching(/scripted: nothing to do/),
    });
    // The activity's retry is visible to operators in the turn's history.
    const history = await (await stack.temporal.get()).workflow.getHandle(`chat:${shortId}:turn:1`).fetchHistory();
    const failed = history.events?.filter((e) => e.activityTaskFailedEventAttributes) ?? [];
    expect(failed.length).toBe(0);
    const started =
      history.events?.filter(
        (e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1,
      ) ?? [];
    expect(started.length).toBe(1);
  }, 120_000);
});
