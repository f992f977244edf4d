import { beforeAll, describe, expect, it } from 'vitest';
import { burnInFlows } from '../support/burn-in-flows.js';
import type { FixtureApps } from '../support/fixture-apps.js';
import { useModelStack } from '../support/model-stack.js';
import { interactionFlows } from '../support/interaction-flows.js';
import {
  expectBatchSpecPassed,
  exportedSpec,
  runPlaywrightSpecs,
  type SpecBatch,
} from '../support/playwright-runner.js';
import type { ScriptedLlm } from '../support/scripted-llm.js';
import type { Stack } from '../support/worker-context.js';

// Issue 21, items 1 and 5: dblclick, drag, type, scroll, go_back and reload, and steps inside a cross-origin iframe
// and an open shadow root, each burned in by the scripted model through the API, replayed with no LLM call,
// exported to a spec that passes under @playwright/test, and failing on the page variant that breaks it.
describe('interaction steps, frames and shadow DOM on the real stack', () => {
  let fixture: FixtureApps;
  let llm: ScriptedLlm;
  let stack: Stack;
  let ids: Map<string, string>;
  let generated: Map<string, any>;

  const rig = useModelStack();
  beforeAll(async () => {
    ({ fixture, llm, stack } = rig);
    // Every flow burns in at once, each against its own application (its page is the environment's URL).
    ({ ids, generated } = await burnInFlows(stack, llm, fixture.url, interactionFlows, { timeoutMs: 90_000 }));
  }, 150_000);

  const replay = (name: string, variant?: string) => {
    const flow = interactionFlows.find((f) => f.name === name)!;
    return stack.activities.executeTest({
      projectId: stack.tenant.projectId,
      testCaseId: ids.get(name)!,
      artifactPrefix: `runs/interactions/${variant ?? 'original'}/${ids.get(name)}`,
      ...(variant && { baseUrl: `${fixture.url}${flow.path}?variant=${variant}` }),
      heal: false,
    });
  };

  // Every flow's exported spec runs in one @playwright/test runner (each spec its own file and verdict), started by
  // the first flow's test that gets there: one runner start instead of one per flow.
  let specsRun: Promise<SpecBatch> | undefined;
  const exportedSpecsRun = () =>
    (specsRun ??= Promise.all(
      interactionFlows.map(async (flow) => [flow.name, await exportedSpec(stack, ids.get(flow.name)!)] as const),
    ).then((specs) => runPlaywrightSpecs(Object.fromEntries(specs))));

  for (const flow of interactionFlows) {
    it(`${flow.name}: recorded, replayed with no LLM call, exported spec passes`, async () => {
      const testCase = generated.get(flow.name);
      expect(testCase.failureReason).toBeNull();
      expect(testCase.generationStatus).toBe('COMPLETED');
      expect(testCase.steps.steps.map((s: { action: string }) => s.action)).toEqual(flow.actions);

      const before = llm.requests.length;
      const result = await replay(flow.name);
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('PASSED');
      expect(result.changes).toEqual([]);
      expect(llm.requests.length).toBe(before);

      expectBatchSpecPassed(await exportedSpecsRun(), flow.name);
      // The first flow's test waits for every flow's spec.
    }, 150_000);

    it(`${flow.name}: fails on the "${flow.broken.variant}" build at step ${flow.broken.failsAt + 1}`, async () => {
      const before = llm.requests.length;
      const result = await replay(flow.name, flow.broken.variant);
      expect(result.status).toBe('FAILED');
      expect(result.failedStepIndex).toBe(flow.broken.failsAt);
      expect(llm.requests.length).toBe(before);
    }, 60_000);
  }

  it('records steps inside the cross-origin iframe by their frame chain, structural fallbacks included', () => {
    const [card] = generated.get('Pay in the cross-origin payment frame').steps.steps;
    expect(card.locator).toBe(
      "locator('iframe[title=\"Payment\"]').contentFrame().getByRole('textbox', { name: 'Card number' })",
    );
    expect(card.fallbacks).toContain(
      'locator(\'iframe[title="Payment"]\').contentFrame().locator(\'input[name="cardnumber"]\')',
    );
  });

  it('a dblclick on an item that lost its accessible name is reported as a regression', async () => {
    const result = await replay('Edit a todo by double-click', 'unlabelled');
    expect(result.changes).toContainEqual(
      expect.objectContaining({ stepIndex: 0, field: 'name', from: 'Buy milk', to: null, severity: 'regression' }),
    );
    expect(result.changes.find((c) => c.stepIndex === 0)?.summary).toMatch(/lost its accessible name/);
  }, 60_000);

  it('go_back fails when the page left no previous page to go back to', async () => {
    const result = await replay('Edit a todo by double-click', 'replaceHelp');
    expect(result.status).toBe('FAILED');
    expect(result.failedStepIndex).toBe(8);
    expect(result.error).toMatch(/no previous page/);
  }, 60_000);
});
