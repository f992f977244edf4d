import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addApplication } from '../support/applications.js';
import { lastPrompt } from '../support/agent-script.js';
import { pollChat, partialTexts } from '../support/chat-polling.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useModelStack } from '../support/model-stack.js';
import { loginSteps, insertRecordedTestCase } from '../support/recorded.js';
import type { ChatRequest, ScriptedLlm } from '../support/scripted-llm.js';
import { checkoutGoal, checkoutMoves } from '../support/shop-agent-script.js';
import type { Stack } from '../support/worker-context.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i + 1}`).join(' ');
/** The text of the last tool result the model was given. */
const lastToolResult = (req: ChatRequest) => {
  const tool = [...req.messages].reverse().find((m) => m.role === 'tool');
  return typeof tool?.content === 'string' ? tool.content : '';
};

/** `RECORD_HISTORIES=1` refreshes the histories that test/workflows/replay.test.ts replays. */
async function recordHistory(stack: Stack, workflowId: string, file: string): Promise<void> {
  const history = await (await stack.temporal.get()).workflow.getHandle(workflowId).fetchHistory();
  writeFileSync(join('test/workflows/histories', file), historyToJSON(history));
}

describe('chat conversations on the real stack', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let appShortId: string;
  let loginId: string;

  const rig = useModelStack();
  beforeAll(async () => {
    ({ fixture, llm, stack } = rig);
    const app = await addApplication(stack, 'Shop', { name: 'Local', url: `${fixture.url}/shop/login` });
    appShortId = app.shortId;
    const appId = app.id;
    loginId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: appId,
      name: 'login',
      steps: loginSteps,
    });
  }, 120_000);
  beforeEach(() => llm.reset());

  it('streams the reply: PARTIAL with growing text while the model streams, then COMPLETED; a title after the first turn', async () => {
    // 60 fragments, 40 ms apart: about 2.4 s of streaming.
    const reply = words(60);
    llm.enqueue({ content: reply, fragmentDelayMs: 40 });
    const created = await stack.call('POST', '/v1/chat', { message: 'Tell me something long. Please.' });
    expect(created.status).toBe(202);

    const poll = await pollChat(stack, created.body.shortId, { intervalMs: 50 });
    expect(poll.final.messages[0]).toMatchObject({
      role: 'assistant',
      status: 'COMPLETED',
      isStreaming: false,
      text: reply,
    });
    const partials = partialTexts(poll);
    expect(partials.length).toBeGreaterThanOrEqual(3);
    partials.forEach((text, i) => {
      expect(reply.startsWith(text)).toBe(true);
      if (i > 0) expect(text.length).toBeGreaterThan(partials[i - 1]!.length);
    });
    expect(poll.final.title).toBe('Tell me something long.');
    // Only text (and the turn's token usage) is exposed, and the model saw the user's message.
    expect(Object.keys(poll.final.messages[0]).sort()).toEqual([
      'createdAt',
      'id',
      'isStreaming',
      'role',
      'status',
      'text',
      'usage',
    ]);
    expect(lastPrompt(llm.requests[0]!)).toBe('Tell me something long. Please.');
  });

  it('cancel ends the streaming reply CANCELLED, keeping what was streamed; the next message works', async () => {
    const reply = words(200);
    llm.enqueue({ content: reply, fragmentDelayMs: 40 }, { content: 'Back again.' });
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'Say a lot' })).body;
    let cancelled = false;
    const poll = await pollChat(stack, shortId, {
      intervalMs: 50,
      onAnswer: async (c) => {
        if (!cancelled && c.messages[0].status === 'PARTIAL' && c.messages[0].text.length > 20) {
          cancelled = true;
          expect((await stack.call('POST', `/v1/chat/${shortId}/cancel`)).status).toBe(202);
        }
      },
    });
    const ended = poll.final.messages[0];
    expect(ended).toMatchObject({ role: 'assistant', status: 'CANCELLED', isStreaming: false });
    expect(ended.text.length).toBeGreaterThan(20);
    expect(ended.text.length).toBeLessThan(reply.length);
    expect(reply.startsWith(ended.text)).toBe(true);
    // Nothing left to cancel.
    expect((await stack.call('POST', `/v1/chat/${shortId}/cancel`)).status).toBe(409);

    expect((await stack.call('POST', `/v1/chat/${shortId}`, { message: 'Are you there?' })).status).toBe(202);
    const next = await pollChat(stack, shortId);
    expect(next.final.messages[0]).toMatchObject({ status: 'COMPLETED', text: 'Back again.' });
    // The model was not shown the cancelled reply as something it said.
    expect(llm.requests[1]!.messages.filter((m) => m.role === 'assistant')).toEqual([]);
    // A conversation with a cancelled turn and a follow-up: the richer history to replay.
    if (process.env.RECORD_HISTORIES) await recordHistory(stack, `chat:${shortId}`, 'chatConversation.json');
  });

  it('answers messages strictly in order, each seeing the replies before it', async () => {
    llm.enqueue({ content: 'first answer, slowly streamed', fragmentDelayMs: 150 }, { content: 'second answer' });
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'one' })).body;
    expect((await stack.call('POST', `/v1/chat/${shortId}`, { message: 'two' })).status).toBe(202);
    await pollChat(stack, shortId);
    const all = (await stack.call('GET', `/v1/chat/${shortId}`)).body.messages.reverse();
    expect(all.map((m: any) => [m.role, m.status, m.text])).toEqual([
      ['user', 'COMPLETED', 'one'],
      ['assistant', 'COMPLETED', 'first answer, slowly streamed'],
      ['user', 'COMPLETED', 'two'],
      ['assistant', 'COMPLETED', 'second answer'],
    ]);
    expect(llm.requests[1]!.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'one'],
      ['assistant', 'first answer, slowly streamed'],
      ['user', 'two'],
    ]);
  });

  it('ends the turn FAILED with a readable reason when the LLM keeps failing, and the next message works', async () => {
    // Every attempt of the activity (3) after the client's own retry (1 more request each).
    llm.failNext(6, 500);
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'hello?' })).body;
    const poll = await pollChat(stack, shortId, { timeoutMs: 60_000 });
    expect(poll.final.messages[0].status).toBe('FAILED');
    expect(poll.final.messages[0].text).toMatch(
      /^The assistant could not answer: the LLM endpoint failed after retries: 500 .*server had an error/,
    );
    expect(llm.requests).toHaveLength(6);

    llm.enqueue({ content: 'All good now.' });
    await stack.call('POST', `/v1/chat/${shortId}`, { message: 'and now?' });
    expect((await pollChat(stack, shortId)).final.messages[0]).toMatchObject({
      status: 'COMPLETED',
      text: 'All good now.',
    });
  });

  it('lists applications and explores a page read-only; refuses results of runs it did not start', async () => {
    // A run of the project that this conversation did not start.
    const plan = (await stack.call('POST', '/v1/test-plans', { name: 'Login only', testCaseIds: [loginId] })).body;
    const runShortId: string = (await stack.call('POST', '/v1/run', { testPlanShortId: plan.shortId })).body.run
      .shortId;
    // That run signs in itself: let it end first, so the read-only check below counts only the explorer's requests.
    for (
      let status = '';
      !['COMPLETED', 'ERROR', 'CANCELLED'].includes(status);
      await new Promise((r) => setTimeout(r, 250))
    ) {
      status = (await stack.call('GET', `/v1/run/${runShortId}`)).body.status;
    }
    const loginPosts = () => fixture.requests().filter((r) => r.startsWith('POST /shop/api/login')).length;
    const loginPostsBefore = loginPosts();
    llm.enqueue(
      {
        toolCalls: [
          { name: 'list_applications', arguments: {} },
          { name: 'explore_page', arguments: { url: `${fixture.url}/shop/login` } },
          { name: 'get_run_results', arguments: { runShortId } },
        ],
      },
      (req) => ({
        content: `Seen: ${req.messages
          .filter((m) => m.role === 'tool')
          .map((m) => m.content)
          .join(' | ')}`,
      }),
    );
    const { shortId } = (await stack.call('POST', '/v1/chat', { message: 'What is on my shop login page?' })).body;
    const text: string = (await pollChat(stack, shortId, { timeoutMs: 60_000 })).final.messages[0].text;
    expect(text).toContain(`Shop (${appShortId}, web)`);
    expect(text).toContain(`${fixture.url}/shop/login`);
    expect(text).toMatch(/button "Sign in"/);
    expect(text).toContain(`run ${runShortId} was not started in this conversation`);
    // Read-only: the explorer never posted the login form.
    expect(loginPosts()).toBe(loginPostsBefore);
  });

  it("runs everything on the first message's environments, also in later turns whose own overrides are ignored", async () => {
    const chosenUrl = `${fixture.url}/shop/login?via=first-message`;
    let runShortId = '';
    llm.enqueue(
      { content: 'Noted, I will use that environment.' },
      { toolCalls: [{ name: 'run_tests', arguments: { testCaseIds: [loginId] } }] },
      (req) => {
        runShortId = /^Run (run_\w+)/.exec(lastToolResult(req))?.[1] ?? 'none';
        return { content: `Ran ${runShortId}.` };
      },
    );
    const overrides = (url: string) => [{ applicationShortId: appShortId, environment: { url } }];
    const { shortId } = (
      await stack.call('POST', '/v1/chat', {
        message: 'Test my branch deployment.',
        applicationOverrides: overrides(chosenUrl),
      })
    ).body;
    await pollChat(stack, shortId);
    const followUp = await stack.call('POST', `/v1/chat/${shortId}`, {
      message: 'Run the login test.',
      applicationOverrides: overrides(`${fixture.url}/shop/login?via=follow-up`),
    });
    expect(followUp.status).toBe(202);
    expect((await pollChat(stack, shortId, { timeoutMs: 60_000 })).final.messages[0]).toMatchObject({
      status: 'COMPLETED',
      text: `Ran ${runShortId}.`,
    });

    const run = (await stack.call('GET', `/v1/run/${runShortId}?testCases=all`)).body;
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED', trigger: 'CHAT' });
    expect(run.runTestCases.map((t: any) => t.environmentUrl)).toEqual([chosenUrl]);
    expect(fixture.requests()).toContain('GET /shop/login?via=first-message');
    expect(fixture.requests().some((r) => r.includes('via=follow-up'))).toBe(false);
  }, 120_000);

  it('creates a checkout test on the fixture shop, burns it in, runs it, and names the run and its result', async () => {
    let testCaseId = '';
    let runShortId = '';
    llm.enqueue(
      (req) => {
        expect(req.stream).toBe(true);
        return {
          content: 'I will create the checkout test.',
          toolCalls: [
            {
              name: 'create_test_case',
              arguments: {
                applicationShortId: appShortId,
                name: 'Checkout with express shipping',
                goal: checkoutGoal,
                expectedResult: 'The order is confirmed',
                resumeFromTestCaseId: loginId,
              },
            },
          ],
        };
      },
      // The burn-in agent (a child workflow) asks the same endpoint for its moves.
      ...checkoutMoves,
      (req) => {
        testCaseId = /\(id ([0-9a-f-]{36})\); burn-in COMPLETED/.exec(lastToolResult(req))?.[1] ?? '';
        return { toolCalls: [{ name: 'run_tests', arguments: { testCaseIds: [testCaseId] } }] };
      },
      (req) => {
        const result = lastToolResult(req);
        runShortId = /^Run (run_\w+): status (\w+), result (\w+)/.exec(result)?.[1] ?? 'none';
        const [, , status, verdict] = /^Run (run_\w+): status (\w+), result (\w+)/.exec(result) ?? [];
        return { content: `Run ${runShortId} ${status} with result ${verdict}.` };
      },
    );
    const created = await stack.call('POST', '/v1/chat', {
      message:
        "Create a test for the shop's checkout with express shipping, continuing from the login test, and run it.",
    });
    expect(created.status).toBe(202);
    const poll = await pollChat(stack, created.body.shortId, { intervalMs: 250, timeoutMs: 180_000 });

    const reply = poll.final.messages[0];
    expect(reply.status, reply.text).toBe('COMPLETED');
    expect(runShortId).toMatch(/^run_/);
    expect(reply.text).toContain(`Run ${runShortId} COMPLETED with result PASSED.`);
    expect(reply.text).toMatch(/^I will create the checkout test\./);

    // What the user can check through the API: the test case exists, disabled, with recorded steps; the run passed.
    const testCase = (await stack.call('GET', `/v1/test-cases/${testCaseId}`)).body;
    expect(testCase).toMatchObject({
      name: 'Checkout with express shipping',
      isEnabled: false,
      generationStatus: 'COMPLETED',
      resumeFromDependencyProjectTestCaseId: loginId,
    });
    expect(testCase.steps.steps.at(-1)).toMatchObject({ action: 'assert_visible' });
    const run = (await stack.call('GET', `/v1/run/${runShortId}?testCases=all`)).body;
    expect(run).toMatchObject({ status: 'COMPLETED', result: 'PASSED', trigger: 'CHAT' });
    expect(run.runTestCases.map((t: any) => [t.name, t.result]).sort()).toEqual([
      ['Checkout with express shipping', 'PASSED'],
      ['login', 'PASSED'],
    ]);

    // Operators: the turn is its own workflow with a summary and the tools it used.
    const client = await stack.temporal.get();
    const turn = await client.workflow.getHandle(`chat:${created.body.shortId}:turn:1`).describe();
    expect(await turn.staticSummary()).toBe(`Chat ${created.body.shortId}, turn 1`);
    expect(await client.workflow.getHandle(`chat:${created.body.shortId}:turn:1`).result()).toEqual({
      status: 'COMPLETED',
      toolsUsed: ['create_test_case', 'run_tests'],
    });

    // chatTurn.json stays as recorded before the tool registry (its unpatched branch); this one replays the registry's.
    if (process.env.RECORD_HISTORIES)
      await recordHistory(stack, `chat:${created.body.shortId}:turn:1`, 'chatTurn-registry.json');
  }, 240_000);
  it('"what does my app have that no test covers?": starts a discovery, then answers from its map and coverage', async () => {
    let discoveryShortId = '';
    llm.enqueue(
      {
        toolCalls: [
          { name: 'start_discovery', arguments: { applicationShortId: appShortId, budget: { pages: 5, minutes: 3 } } },
        ],
      },
      (req) => {
        discoveryShortId = /^Discovery (disc_\w+) started/.exec(lastToolResult(req))?.[1] ?? 'none';
        return { content: lastToolResult(req) };
      },
    );
    const first = (await stack.call('POST', '/v1/chat', { message: 'What does my app have that no test covers?' }))
      .body;
    const started: string = (await pollChat(stack, first.shortId, { timeoutMs: 60_000 })).final.messages[0].text;
    expect(started).toContain(`on ${fixture.url}/shop/login`);
    expect(started).toContain(`discovery_map with discoveryShortId ${discoveryShortId}`);
    // The discovery the tool started is a real one: the API shows it, and it completes.
    let discovery: any;
    for (const deadline = Date.now() + 90_000; ; await new Promise((r) => setTimeout(r, 250))) {
      discovery = (await stack.call('GET', `/v1/discoveries/${discoveryShortId}`)).body;
      if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(discovery.status) || Date.now() > deadline) break;
    }
    expect(discovery).toMatchObject({ applicationShortId: appShortId, status: 'COMPLETED', budget: { pages: 5 } });

    llm.enqueue(
      {
        toolCalls: [
          { name: 'discovery_map', arguments: { applicationShortId: appShortId } },
          { name: 'uncovered', arguments: { applicationShortId: appShortId } },
        ],
      },
      (req) => ({
        content: req.messages
          .filter((m) => m.role === 'tool')
          .map((m) => m.content)
          .join('\n---\n'),
      }),
    );
    expect((await stack.call('POST', `/v1/chat/${first.shortId}`, { message: 'And now?' })).status).toBe(202);
    const answer: string = (await pollChat(stack, first.shortId, { timeoutMs: 60_000 })).final.messages[0].text;
    // Signed out, the shop is its sign-in page and its form (test/e2e/discovery.test.ts maps it the same way).
    expect(answer).toContain(`Discovery ${discoveryShortId} of ${appShortId} on ${fixture.url}/shop/login: COMPLETED`);
    expect(answer).toContain('1 page pattern(s), 1 form(s)');
    expect(answer).toMatch(/- \/shop\/login "Sign in · Shop": 1 page\(s\); forms: /);
    // By hand: the login test opens the sign-in page and fills and submits its form, so nothing is left uncovered.
    expect(answer).toContain(
      `From discovery ${discoveryShortId} (finished ${discovery.finishedAt}): 0 of 1 page pattern(s) and 0 of 1 form(s) are covered by no enabled test.`,
    );
  }, 180_000);
});
