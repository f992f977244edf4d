import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exportedSpec, expectSpecPasses } from '../support/playwright-runner.js';
import { shopCredentials, type Variant } from '../support/fixture-apps.js';
import { refOf, tool, type AgentMove } from '../support/agent-script.js';
import { signInAndAddMug } from '../support/shop-agent-script.js';
import { useShopStack } from '../support/shop-stack.js';

// Self-healing on the real stack (Temporal worker, Postgres, Chromium, the scripted model over HTTP): a heal
// never turns a real failure into a pass, heals add to the recorded locators, and the project decides whether
// they are saved at once or proposed for review.

const localeGoal = 'Sign in and put the mug in the cart';
const localeMoves: AgentMove[] = [
  ...signInAndAddMug,
  () => tool('assert_text', { text: shopCredentials.email, description: 'The shopper is signed in' }),
  () => tool('done', { summary: 'ok' }),
];
const stockGoal = 'Add the mug and see the confirmation';
const stockMoves: AgentMove[] = [
  ...signInAndAddMug,
  (r) =>
    tool('assert_visible', {
      ref: refOf(r, /status.*Added Coffee mug to cart/),
      description: 'The confirmation is shown',
    }),
  () => tool('done', { summary: 'ok' }),
];

describe('self-healing that can be trusted', () => {
  const shop = useShopStack();
  const burnIn = shop.burnIn;

  const run = (testCaseId: string, variant: Variant) => shop.replay(testCaseId, { variant, heal: true });

  /** A copy (a new id, "… copy") of the test case an earlier test burned in under `name`, with the same steps. */
  async function copyOf(name: string): Promise<string> {
    const id = randomUUID();
    const original = await shop.stack.db
      .selectFrom('test_cases')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    await shop.stack.db
      .insertInto('test_cases')
      .values({
        ...original,
        id,
        name: `${original.name} copy`,
        steps: JSON.stringify(original.steps),
        not_covered: original.not_covered && JSON.stringify(original.not_covered),
        recording_check: original.recording_check && JSON.stringify(original.recording_check),
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    return id;
  }

  const steps = async (id: string) => (await shop.stack.call('GET', `/v1/test-cases/${id}`)).body.steps;

  it('fails at the assertion when the page shows an error instead, refusing the model’s pick of the error, and saves nothing', async () => {
    await shop.stack.call('PATCH', '/v1/project/settings', { healPolicy: 'auto' });
    const generated = await burnIn('Mug confirmation', stockGoal, stockMoves);
    const recorded = generated.steps;
    expect(recorded.steps[4]).toMatchObject({
      action: 'assert_visible',
      locator: "getByText('Added Coffee mug to cart')",
      target: { role: 'status', name: 'Added Coffee mug to cart' },
    });

    // The model, asked to re-find the confirmation, proposes the error alert: the code refuses it.
    shop.llm.enqueue((r) =>
      tool('select_element', {
        ref: refOf(r, /alert.*Could not add/),
        reason: 'The only message near the product list',
      }),
    );
    const result = await run(generated.id, 'outOfStock');
    expect(result.status).toBe('FAILED');
    expect(result.requests).toHaveLength(1);
    expect(result.failedStepIndex).toBe(4);
    expect(result.error).toMatch(/^step 5 \(assert_visible\)/);
    expect(result.error).toContain("refused the model's pick");
    expect(result.error).toContain('the proposed element is a alert');
    // What the page showed instead, and a screenshot of it.
    expect(result.error).toContain('the page showed: "Could not add Coffee mug to cart: out of stock');
    expect((await shop.stack.activityDeps.blobs.get(result.screenshotKey!)).subarray(1, 4).toString()).toBe('PNG');
    expect(result.healed).toEqual([]);
    expect(result.keptHeal).toBeUndefined();
    expect(await steps(generated.id)).toEqual(recorded);
    expect((await shop.stack.call('GET', `/v1/test-cases/${generated.id}/steps/proposals`)).body.proposals).toEqual([]);
  });

  it('auto: a German run heals and saves in front of the recorded locators; English and German then run with no LLM call', async () => {
    await shop.stack.call('PATCH', '/v1/project/settings', { healPolicy: 'auto' });
    const generated = await burnIn('Mug locale', localeGoal, localeMoves);
    const recorded = generated.steps;
    // Burn-in kept a structural fallback for every action the page offers one for (the Sign in button has none).
    expect(recorded.steps[0].fallbacks).toEqual(['locator(\'input[name="email"]\')', "locator('#email')"]);
    expect(recorded.steps[1].fallbacks).toEqual(['locator(\'input[name="password"]\')', "locator('#password')"]);
    expect(recorded.steps[2].fallbacks).toEqual([]);
    expect(recorded.steps[3].fallbacks).toEqual(["locator('#add-mug')"]);

    shop.llm.enqueue((r) =>
      tool('select_element', {
        ref: refOf(r, 'button "Anmelden"'),
        reason: "The form's submit button, same role, German name",
      }),
    );
    const german = await run(generated.id, 'de');
    expect(german.error).toBeUndefined();
    expect(german.status).toBe('PASSED');
    expect(german.requests).toHaveLength(1);
    expect(german.healed.map((h) => [h.index, h.via, h.to])).toEqual([
      [0, 'fallback', 'locator(\'input[name="email"]\')'],
      [1, 'fallback', 'locator(\'input[name="password"]\')'],
      [2, 'llm', "getByRole('button', { name: 'Anmelden' })"],
      [3, 'fallback', "locator('#add-mug')"],
    ]);
    expect(german.keptHeal).toEqual({ kept: 'saved', version: recorded.version + 1 });
    const saved = await steps(generated.id);
    expect(saved.version).toBe(recorded.version + 1);
    // Added in front, never replacing: the English locator is still there.
    expect(saved.steps[2].locator).toBe("getByRole('button', { name: 'Anmelden' })");
    expect(saved.steps[2].fallbacks).toEqual(["getByRole('button', { name: 'Sign in' })"]);

    const english = await run(generated.id, 'original');
    expect(english.status).toBe('PASSED');
    expect(english.requests).toHaveLength(0);
    const germanAgain = await run(generated.id, 'de');
    expect(germanAgain.status).toBe('PASSED');
    expect(germanAgain.requests).toHaveLength(0);

    // The spec exported after the German runs still passes on the English page: it carries every locator.
    const spec = await exportedSpec(shop.stack, generated.id);
    expect(spec).toContain(".or(page.getByRole('button', { name: 'Sign in' }))");
    await expectSpecPasses(spec, { SHOP_PASSWORD: shopCredentials.password });
  }, 120_000);

  it('review (the default): the heal becomes a proposal, the steps stay until someone accepts it', async () => {
    await shop.stack.call('PATCH', '/v1/project/settings', { healPolicy: 'review' });
    expect((await shop.stack.call('GET', '/v1/project/settings')).body).toMatchObject({ healPolicy: 'review' });
    const id = await copyOf('Mug locale');
    // The copy starts from the English recording.
    const recorded = await shop.stack.db
      .selectFrom('test_cases')
      .select(['steps', 'steps_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await shop.stack.db
      .updateTable('test_cases')
      .set({
        steps: JSON.stringify(
          (recorded.steps as { locator?: string; fallbacks?: string[] }[]).map((s, i) =>
            i === 2 ? { ...s, locator: "getByRole('button', { name: 'Sign in' })", fallbacks: [] } : s,
          ),
        ),
      })
      .where('id', '=', id)
      .execute();
    const before = await steps(id);

    shop.llm.enqueue((r) =>
      tool('select_element', { ref: refOf(r, 'button "Anmelden"'), reason: 'Submit button of the sign-in form' }),
    );
    const german = await run(id, 'de');
    expect(german.status).toBe('PASSED');
    expect(german.requests).toHaveLength(1);
    expect(german.keptHeal).toEqual({ kept: 'proposed', version: before.version + 1 });
    expect(await steps(id)).toEqual(before);
    const listed = (await shop.stack.call('GET', `/v1/test-cases/${id}/steps/proposals`)).body.proposals;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ version: before.version + 1, basedOnVersion: before.version, status: 'PENDING' });
    expect(listed[0].steps[2].locator).toBe("getByRole('button', { name: 'Anmelden' })");
    expect(listed[0].healed.find((h: { via: string }) => h.via === 'llm')).toMatchObject({
      index: 2,
      reason: 'Submit button of the sign-in form',
    });
    // The test case itself shows the proposal waiting for a decision.
    const shown = (await shop.stack.call('GET', `/v1/test-cases/${id}`)).body;
    expect(shown.healProposals).toEqual(listed);

    // Unknown version: 404; accepting applies it; accepting twice: 409.
    expect((await shop.stack.call('POST', `/v1/test-cases/${id}/steps/${before.version + 5}/accept`)).status).toBe(404);
    const accepted = await shop.stack.call('POST', `/v1/test-cases/${id}/steps/${before.version + 1}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('ACCEPTED');
    const after = await steps(id);
    expect(after.version).toBe(before.version + 1);
    expect(after.steps[2].fallbacks).toEqual(["getByRole('button', { name: 'Sign in' })"]);
    expect((await shop.stack.call('GET', `/v1/test-cases/${id}`)).body.healProposals).toEqual([]);
    const again = await shop.stack.call('POST', `/v1/test-cases/${id}/steps/${before.version + 1}/accept`);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already accepted/);

    const germanAgain = await run(id, 'de');
    expect(germanAgain.status).toBe('PASSED');
    expect(germanAgain.requests).toHaveLength(0);
    const english = await run(id, 'original');
    expect(english.status).toBe('PASSED');
    expect(english.requests).toHaveLength(0);
    // The English name is a recorded fallback now: review proposes nothing for a run that only used those.
    expect(english.healed.map((h) => [h.index, h.via])).toEqual([[2, 'fallback']]);
    expect(english.keptHeal).toEqual({ kept: 'nothing', reason: 'only recorded fallbacks were used' });
  });

  it('a rejected proposal leaves the steps as they were; bad settings are a 400 that changes nothing', async () => {
    const id = await copyOf('Mug confirmation');
    const before = await steps(id);
    // A renamed product button with its id fallback removed: only the model can find it.
    await shop.stack.db
      .updateTable('test_cases')
      .set({
        steps: JSON.stringify(
          before.steps.map((s: { fallbacks?: string[] }, i: number) => (i === 3 ? { ...s, fallbacks: [] } : s)),
        ),
      })
      .where('id', '=', id)
      .execute();
    shop.llm.enqueue((r) =>
      tool('select_element', { ref: refOf(r, 'button "Put Coffee mug in basket"'), reason: 'Same button, renamed' }),
    );
    const renamed = await run(id, 'renamed');
    expect(renamed.status).toBe('PASSED');
    expect(renamed.keptHeal).toMatchObject({ kept: 'proposed' });
    const version = before.version + 1;
    const rejected = await shop.stack.call('POST', `/v1/test-cases/${id}/steps/${version}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('REJECTED');
    expect((await steps(id)).version).toBe(before.version);
    expect((await shop.stack.call('POST', `/v1/test-cases/${id}/steps/${version}/accept`)).status).toBe(409);
    // The next run heals the same way; the rejected proposal is not revived behind the person's back.
    shop.llm.enqueue((r) =>
      tool('select_element', { ref: refOf(r, 'button "Put Coffee mug in basket"'), reason: 'Same button, renamed' }),
    );
    const again = await run(id, 'renamed');
    expect(again.status).toBe('PASSED');
    expect(again.keptHeal).toEqual({
      kept: 'nothing',
      reason: `the heal proposal for steps version ${version} was already decided`,
    });
    const proposals = (await shop.stack.call('GET', `/v1/test-cases/${id}/steps/proposals`)).body.proposals;
    expect(proposals.map((p: { version: number; status: string }) => [p.version, p.status])).toEqual([
      [version, 'REJECTED'],
    ]);

    const bad = await shop.stack.call('PATCH', '/v1/project/settings', { healPolicy: 'always' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/healPolicy/);
    expect((await shop.stack.call('GET', '/v1/project/settings')).body).toMatchObject({ healPolicy: 'review' });
  });
});
