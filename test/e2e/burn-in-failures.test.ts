import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import { refOf, tool } from '../support/agent-script.js';
import { startStack, waitForGeneration, type Stack } from '../support/worker-context.js';
import { freePort } from '../support/net.js';

/** An application with one environment at `url`; returns its short id. */
async function applicationAt(stack: Stack, url: string): Promise<string> {
  const app = (await stack.call('POST', '/v1/applications', { name: `App ${Math.random().toString(36).slice(2, 7)}` }))
    .body;
  await stack.call('POST', `/v1/applications/${app.shortId}/environments`, { name: 'Env', url });
  return app.shortId;
}

async function burnIn(stack: Stack, applicationShortId: string, goal: string) {
  const created = await stack.call('POST', '/v1/test-cases', { name: goal.slice(0, 80), goal, applicationShortId });
  expect(created.status).toBe(200);
  return waitForGeneration(stack, created.body.testCase.id);
}

describe('burn-in failure reasons a user can read', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let withLlm: Stack;
  let withoutLlm: Stack;

  beforeAll(async () => {
    [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
    [withLlm, withoutLlm] = await Promise.all([startStack({ llm, maxAgentSteps: 3 }), startStack()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([withLlm?.close(), withoutLlm?.close()]);
    await Promise.all([fixture?.stop(), llm?.stop()]);
  });

  it('no LLM configured', async () => {
    const result = await burnIn(withoutLlm, await applicationAt(withoutLlm, `${fixture.url}/todo/`), 'Add a todo');
    expect(result.generationStatus).toBe('FAILED');
    expect(result.failureReason).toMatch(/No LLM is configured: set OPENAI_API_KEY/);
  });

  it('goal not reached within the step budget', async () => {
    llm.reset();
    llm.enqueue(
      ...Array.from(
        { length: 3 },
        () => (r: Parameters<typeof refOf>[0]) =>
          tool('click', { ref: refOf(r, 'button "Add"'), description: 'Click add' }),
      ),
    );
    const result = await burnIn(withLlm, await applicationAt(withLlm, `${fixture.url}/todo/`), 'Add a todo named milk');
    expect(result.generationStatus).toBe('FAILED');
    expect(result.failureReason).toBe('goal not reached within 3 steps');
  });

  it('the LLM endpoint failing after retries', async () => {
    llm.reset();
    llm.failNext(10, 500);
    const result = await burnIn(
      withLlm,
      await applicationAt(withLlm, `${fixture.url}/todo/`),
      'Add a todo named bread',
    );
    expect(result.generationStatus).toBe('FAILED');
    expect(result.failureReason).toMatch(/the LLM endpoint failed after retries: 500/);
  });

  it('the agent gives up with a reason', async () => {
    llm.reset();
    llm.enqueue(tool('fail', { reason: 'there is no way to export todos' }));
    const result = await burnIn(
      withLlm,
      await applicationAt(withLlm, `${fixture.url}/todo/`),
      'Export the todos as CSV',
    );
    expect(result.failureReason).toBe('the agent could not reach the goal: there is no way to export todos');
  });

  it('the application is unreachable', async () => {
    llm.reset();
    const port = await freePort();
    const result = await burnIn(withLlm, await applicationAt(withLlm, `http://127.0.0.1:${port}/`), 'Anything');
    expect(result.generationStatus).toBe('FAILED');
    expect(result.failureReason).toMatch(new RegExp(`application unreachable at http://127.0.0.1:${port}/`));
    expect(llm.requests).toEqual([]);
  }, 90_000);

  it('a cloud metadata address is refused by the browser', async () => {
    llm.reset();
    const result = await burnIn(
      withLlm,
      await applicationAt(withLlm, 'http://169.254.169.254/latest/meta-data/'),
      'Read metadata',
    );
    expect(result.generationStatus).toBe('FAILED');
    expect(result.failureReason).toMatch(/application unreachable at http:\/\/169\.254\.169\.254/);
    expect(llm.requests).toEqual([]);
  }, 90_000);
});
