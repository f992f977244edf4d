// A test of an app that only runs on the developer's machine: the fixture shop listens on loopback, the
// worker's browser may not reach private ranges, and the environment URL is the `proctor tunnel` hostname.
// The test case is burned in (scripted LLM) and replayed through the tunnel.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouter } from '../support/agent-script.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useModelStack } from '../support/model-stack.js';
import { waitFor } from '../support/net.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import { addShop, loginGoal, loginMoves } from '../support/shop-agent-script.js';
import {
  spawnTunnel,
  startTunnelStack,
  testTunnelDomain,
  type TunnelProcess,
  type TunnelStack,
} from '../support/tunnel-stack.js';
import { burnInOnShop } from '../support/shop-stack.js';
import type { Stack } from '../support/worker-context.js';

describe('burn-in and replay through a remote tunnel', () => {
  const secret = randomBytes(24).toString('hex');
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let edge: TunnelStack;
  let tunnel: TunnelProcess;
  const router = createRouter();

  const rig = useModelStack({
    concurrency: 2,
    allowPrivateNetworks: false,
    tunnels: { domain: testTunnelDomain, internalSecret: secret },
  });
  beforeAll(async () => {
    ({ fixture, llm, stack } = rig);
    // The API process with the tunnel edge, on the same database as the worker.
    edge = await startTunnelStack({ db: stack.db, secret });
    // The tunnel belongs to the project whose tests use it: a private tunnel serves no other project's agents.
    tunnel = await spawnTunnel(['--port', `shop=${new URL(fixture.url).port}`, '--api-url', edge.apiUrl], {
      PROCTOR_TOKEN: stack.tenant.token,
    });
    await waitFor(
      async () => (await stack.call('GET', `/v1/remote-tunnels/${tunnel.runnerId()}/status`)).body.connections === 4,
      20_000,
      'four connections',
    );
  }, 120_000);

  afterAll(async () => {
    tunnel?.child.kill('SIGKILL');
    await edge?.close();
  });

  it('records the steps on the tunnel URL and replays them, while the app itself stays out of the browser’s reach', async () => {
    const tunnelUrl = tunnel.urlFor(Number(new URL(fixture.url).port));
    await stack.browsers.withContext({}, async ({ page }) => {
      await expect(page.goto(`${fixture.url}/shop/login`)).rejects.toThrow(/ERR_/);
    });

    const shop = await addShop(stack, `${tunnelUrl}/shop/login`, {
      application: 'Shop on my laptop',
      environment: 'Laptop',
    });

    const generated = await burnInOnShop({ stack, llm, router, ...shop }, 'Login and add mug', loginGoal, loginMoves, {
      expectedResult: 'The cart link shows one item',
    });
    const id = generated.id;
    expect(generated.generationStatus).toBe('COMPLETED');
    expect(generated.steps.steps.map((s: { action: string }) => s.action)).toEqual([
      'fill',
      'fill',
      'click',
      'click',
      'assert_visible',
    ]);

    const replay = await stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId: id,
      artifactPrefix: 'runs/tunnel/login',
    });
    expect(replay.error).toBeUndefined();
    expect(replay.status).toBe('PASSED');
  });
});
