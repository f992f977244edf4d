import { randomUUID } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import type { ExecuteTestResult } from '../../activities/test-execution.js';
import { createRouter, type AgentMove } from './agent-script.js';
import type { Variant } from './fixture-apps.js';
import { useModelStack, type ModelStack } from './model-stack.js';
import type { ChatRequest } from './scripted-llm.js';
import { addShop } from './shop-agent-script.js';
import { waitForGeneration, type ApiCaller } from './worker-context.js';

/** The real stack (Temporal worker, Postgres, Chromium) with the fixture apps, a scripted model and the shop set up. */
export interface ShopStack extends ModelStack {
  appShortId: string;
  configShortIds: string[];
  /** Routes each agent request to the moves of the goal it carries. */
  router: ReturnType<typeof createRouter>;
  /** Creates a test case through the API and waits for its burn-in to record the steps (it must succeed). */
  burnIn(
    name: string,
    goal: string,
    moves: AgentMove[],
    extra?: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<any>;
  /**
   * Replays the test case (healing as `heal` says; the activity's default when absent) while the shop shows
   * `variant` (default the original; back to the original after): the result, and the model requests the replay
   * made (its heals; none when it needed no model).
   */
  replay(
    testCaseId: string,
    opts?: { variant?: Variant; heal?: boolean },
  ): Promise<ExecuteTestResult & { requests: ChatRequest[] }>;
}

/**
 * Creates a test case of the shop through the API, its burn-in scripted with `moves` for `goal`, and waits for the
 * burn-in to record the steps (it must succeed). For a file with a shop stack of its own; `useShopStack().burnIn`
 * is this on that stack.
 */
export async function burnInOnShop(
  shop: Pick<ShopStack, 'llm' | 'router' | 'appShortId' | 'configShortIds'> & { stack: ApiCaller },
  name: string,
  goal: string,
  moves: AgentMove[],
  extra: Record<string, unknown> = {},
  /** How long the burn-in may take (a large page's steps are slow on a busy machine); default 60 s. */
  timeoutMs?: number,
): Promise<any> {
  shop.router.add(goal, moves);
  shop.llm.enqueue(...moves.map(() => shop.router.reply));
  const created = await shop.stack.call('POST', '/v1/test-cases', {
    name,
    goal,
    expectedResult: 'as scripted',
    applicationShortId: shop.appShortId,
    configShortIds: shop.configShortIds,
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const generated = await waitForGeneration(shop.stack, created.body.testCase.id, timeoutMs);
  expect(generated.failureReason).toBeNull();
  return generated;
}

/**
 * Starts the shop stack before the file's tests and stops it after them. Its fields are set once `beforeAll` ran,
 * so tests read them from the returned object.
 */
export function useShopStack(): ShopStack {
  const shop = useModelStack() as ShopStack;
  shop.router = createRouter();
  shop.burnIn = (name, goal, moves, extra, timeoutMs) => burnInOnShop(shop, name, goal, moves, extra, timeoutMs);
  shop.replay = async (testCaseId, { variant = 'original', heal } = {}) => {
    shop.fixture.setVariant(variant);
    try {
      const before = shop.llm.requests.length;
      const result = await shop.stack.activities.executeTest({
        projectId: shop.stack.tenant.projectId,
        testCaseId,
        artifactPrefix: `runs/${randomUUID()}/t`,
        ...(heal !== undefined && { heal }),
      });
      return { ...result, requests: shop.llm.requests.slice(before) };
    } finally {
      shop.fixture.setVariant('original');
    }
  };
  beforeAll(async () => {
    Object.assign(shop, await addShop(shop.stack, `${shop.fixture.url}/shop/login`));
  });
  return shop;
}
