import { expect } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { createRouter, type AgentMove } from './agent-script.js';
import type { FlowVariant } from './fixtures/flows.js';
import { useModelStack, type ModelStack } from './model-stack.js';
import { waitForGeneration, type Stack } from './worker-context.js';

// The stack the dialogs/tabs and downloads/uploads e2e tests share: fixture apps, scripted model, real stack,
// and the three things each test does: burn in through the API, replay with no LLM call, export the spec.

export interface FlowStack extends ModelStack {
  /** Test case ids by key. */
  ids: Record<string, string>;
  /** Application and environment short ids by key. */
  apps: Record<string, { app: string; env: string }>;
  /** Burns in `goal` on the page at `path` with the scripted moves (one LLM call each); the recorded steps. */
  burnIn(key: string, path: string, goal: string, expectedResult: string, moves: AgentMove[]): Promise<Step[]>;
  /** Replays the test on a fixture variant, asserting it made no LLM call. */
  replay(key: string, variant?: FlowVariant): ReturnType<Stack['activities']['executeTest']>;
  /** The exported spec, through the API. */
  exported(key: string): Promise<string>;
}

/** Starts the stack before the file's tests and stops it after; the returned object is filled in by then. */
export function useFlowStack(): FlowStack {
  const router = createRouter();
  const flows = Object.assign(useModelStack(), { ids: {}, apps: {} }) as FlowStack;

  flows.burnIn = async (key, path, goal, expectedResult, moves) => {
    const { stack, llm, fixture } = flows;
    const app = (await stack.call('POST', '/v1/applications', { name: `Flows ${key}` })).body.shortId as string;
    const env = (
      await stack.call('POST', `/v1/applications/${app}/environments`, { name: 'Local', url: `${fixture.url}${path}` })
    ).body.shortId as string;
    flows.apps[key] = { app, env };
    router.add(goal, moves);
    llm.enqueue(...moves.map(() => router.reply));
    const before = llm.requests.length;
    const created = await stack.call('POST', '/v1/test-cases', {
      name: key,
      goal,
      expectedResult,
      applicationShortId: app,
    });
    expect(created.status).toBe(200);
    flows.ids[key] = created.body.testCase.id;
    const generated = await waitForGeneration(stack, flows.ids[key]!);
    expect(generated.failureReason).toBeNull();
    expect(generated.generationStatus).toBe('COMPLETED');
    expect(llm.requests.length - before).toBe(moves.length);
    return generated.steps.steps as Step[];
  };

  flows.replay = async (key, variant = 'original') => {
    const { stack, llm, fixture } = flows;
    fixture.flows.setFlowVariant(variant);
    try {
      const before = llm.requests.length;
      const result = await stack.activities.executeTest({
        projectId: stack.tenant.projectId,
        testCaseId: flows.ids[key]!,
        artifactPrefix: `runs/flows/${key}-${variant}`,
      });
      expect(llm.requests.length).toBe(before);
      return result;
    } finally {
      fixture.flows.setFlowVariant('original');
    }
  };

  flows.exported = async (key) => {
    const res = await flows.stack.app.request(`/v1/test-cases/${flows.ids[key]}/playwright`, {
      headers: { authorization: `Bearer ${flows.stack.tenant.token}` },
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  return flows;
}
