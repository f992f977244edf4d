// Burning in a table of scripted flows at once, through the API, as the matrix tests (interaction steps, failed
// calls) do: each flow gets its own application whose environment is the flow's page, the scripted model answers
// every request by the goal it carries, and each test case is awaited until its burn-in ends.
import { expect } from 'vitest';
import { createRouter, type AgentMove } from './agent-script.js';
import type { ScriptedLlm } from './scripted-llm.js';
import { waitForGeneration, type Stack } from './worker-context.js';

export interface ScriptedFlow {
  name: string;
  /** The page the test starts on (the application's environment), below the fixture's URL. */
  path: string;
  goal: string;
  expectedResult: string;
  moves: AgentMove[];
}

/**
 * Burns in every flow concurrently and returns, by flow name, its test case's id and the test case as its burn-in
 * left it. `router` is the one the model's replies go through; a test that scripts more moves later passes its own.
 */
export async function burnInFlows(
  stack: Stack,
  llm: ScriptedLlm,
  fixtureUrl: string,
  flows: ScriptedFlow[],
  options: { timeoutMs: number; router?: ReturnType<typeof createRouter> },
): Promise<{ ids: Map<string, string>; generated: Map<string, any> }> {
  const router = options.router ?? createRouter();
  const ids = new Map<string, string>();
  const generated = new Map<string, any>();
  for (const flow of flows) router.add(flow.goal, flow.moves);
  llm.enqueue(...flows.flatMap((f) => f.moves).map(() => router.reply));
  await Promise.all(
    flows.map(async (flow) => {
      const app = (await stack.call('POST', '/v1/applications', { name: flow.name })).body.shortId as string;
      await stack.call('POST', `/v1/applications/${app}/environments`, {
        name: 'Local',
        url: `${fixtureUrl}${flow.path}`,
      });
      const created = await stack.call('POST', '/v1/test-cases', {
        name: flow.name,
        goal: flow.goal,
        expectedResult: flow.expectedResult,
        applicationShortId: app,
      });
      expect(created.status).toBe(200);
      ids.set(flow.name, created.body.testCase.id);
      generated.set(flow.name, await waitForGeneration(stack, created.body.testCase.id, options.timeoutMs));
    }),
  );
  return { ids, generated };
}

/** One test case to burn in with the scripted model: `extra` adds fields to its POST (configShortIds, say). */
export interface ScriptedTest {
  name: string;
  goal: string;
  moves: AgentMove[];
  applicationShortId: string;
  extra?: Record<string, unknown>;
}

/**
 * Burns in one scripted test case through the API: the router answers its goal with `moves`, the test case is
 * created ("as scripted" is its expected result; `extra` adds fields such as configShortIds) and awaited. Asserts
 * what every caller checks (created, and generated without a failure) and returns the test case as generated.
 */
export async function burnInScripted(
  stack: Stack,
  llm: ScriptedLlm,
  router: ReturnType<typeof createRouter>,
  test: ScriptedTest,
  timeoutMs?: number,
): Promise<any> {
  router.add(test.goal, test.moves);
  llm.enqueue(...test.moves.map(() => router.reply));
  const created = await stack.call('POST', '/v1/test-cases', {
    name: test.name,
    goal: test.goal,
    expectedResult: 'as scripted',
    applicationShortId: test.applicationShortId,
    ...test.extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const generated = await waitForGeneration(stack, created.body.testCase.id, timeoutMs);
  // On a failure, the model's last prompt says what the agent saw when it gave up.
  const lastPrompt = () => String(llm.requests.at(-1)?.messages.at(-1)?.content);
  expect(generated.failureReason, generated.failureReason && lastPrompt()).toBeNull();
  return generated;
}
