// Crash safety of a change review: a `proctor worker` process killed with SIGKILL while the review burns in the test
// it created leaves one review, one verdict, one assistant reply, one run and no duplicate test case, finished by the
// next worker.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { useCrashStack } from '../support/crash-stack.js';
import { insertRecordedTestCase, loginSteps, applicationIdOf } from '../support/recorded.js';
import { changeReviewAction, reviewResponder } from '../support/review-script.js';
import { checkoutGoal, checkoutMoves } from '../support/shop-agent-script.js';
import { killWorker, waitWhileRunning } from '../support/worker-process.js';
import { rowIdOf } from '../support/row-ids.js';

const checkoutDiff = `diff --git a/src/checkout/Shipping.tsx b/src/checkout/Shipping.tsx
new file mode 100644
--- /dev/null
+++ b/src/checkout/Shipping.tsx
@@ -0,0 +1,3 @@
+export function Shipping() {
+  return <select name="shipping"><option>Standard</option><option>Express</option></select>;
+}
`;

describe('a change review survives a killed worker', () => {
  const crash = useCrashStack({
    name: 'review-crash',
    fixture: true,
    env: { PROCTOR_ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  const reviewTestCases = () =>
    crash.stack.db
      .selectFrom('test_cases')
      .select(['id', 'generation_status'])
      .where((eb) => eb(eb.val('change-review'), '=', eb.fn.any('labels')))
      .execute();
  let appShortId: string;
  let loginId: string;
  /** The review as CI sends it for a branch: the repository and branch make later reviews of it the same change. */
  const request = () => ({
    mode: 'rawChanges',
    changes: { changeDescription: 'Express shipping option at checkout', diff: checkoutDiff },
    applicationOverrides: [{ applicationShortId: appShortId, environment: { url: `${crash.fixture.url}/shop/login` } }],
    repository: 'acme/shop',
    branch: 'feature/express',
  });

  it('SIGKILL while the new test burns in: the next worker finishes the review; one verdict, no duplicate test case', async () => {
    const { stack, llm } = crash;
    appShortId = (await stack.call('POST', '/v1/applications', { name: 'Shop' })).body.shortId;
    const appId = await applicationIdOf(stack.db, appShortId);
    loginId = await insertRecordedTestCase(stack.db, {
      projectId: stack.tenant.projectId,
      applicationId: appId,
      name: 'Sign in and add the mug',
      steps: loginSteps,
    });
    // Every request gets the same stateless answer, so the attempts after the crash are scripted too.
    const model = reviewResponder({
      select: (prompt) => {
        expect(prompt).not.toContain('earlier reviews of this change created');
        return {
          existingTestCaseIds: [],
          newTests: [
            {
              name: 'Checkout with express shipping',
              goal: checkoutGoal,
              applicationShortId: appShortId,
              expectedResult: 'The order is confirmed',
              resumeFromTestCaseId: loginId,
            },
          ],
          reasoning: 'Express shipping is new and untested.',
        };
      },
      verdict: () => ({
        verdict: 'Approved',
        summary: 'Express checkout works on the preview.',
        evaluationDetails: 'The new checkout test passed.',
      }),
      moves: checkoutMoves,
    });
    llm.enqueue(...Array.from({ length: 60 }, () => model));

    const first = crash.startWorker();
    const outcome = changeReviewAction(stack, request(), { timeoutMs: 240_000 });
    // Kill it once the new test exists and its burn-in agent has taken a few steps.
    await waitWhileRunning(
      first,
      async () => {
        const agentCalls = llm.requests.filter(
          (r) =>
            !r.tools?.some((t) => t.type === 'function' && ['select_tests', 'write_verdict'].includes(t.function.name)),
        ).length;
        return (await reviewTestCases()).length === 1 && agentCalls >= 3;
      },
      120_000,
      'the new test to be burning in on the first worker',
    ).catch(async (err: Error) => {
      const reviews = await stack.db
        .selectFrom('change_reviews')
        .select(['state', 'phase', 'failure_reason'])
        .execute();
      const messages = await stack.db.selectFrom('chat_messages').select(['role', 'status', 'text']).execute();
      throw new Error(
        `${err.message}; reviews ${JSON.stringify(reviews)}; messages ${JSON.stringify(messages)}; ${llm.requests.length} model requests; worker:\n${first.output()}`,
      );
    });
    await killWorker(first);
    crash.startWorker();

    const { shortId, verdict, text } = await outcome;
    expect(verdict, text).toBe('Approved');
    expect(text).toMatch(/\| Checkout with express shipping \| new \| PASSED \|/);
    // One of everything: the test case (stable id), the review, its reply, its run.
    const created = await reviewTestCases();
    expect(created).toEqual([{ id: expect.any(String), generation_status: 'COMPLETED' }]);
    const testCase = (await stack.call('GET', `/v1/test-cases/${created[0]!.id}`)).body;
    expect(testCase).toMatchObject({
      name: 'Checkout with express shipping',
      isEnabled: false,
      labels: ['change-review'],
      resumeFromDependencyProjectTestCaseId: loginId,
    });
    const chatId = await rowIdOf(stack.db, 'chats', shortId);
    const replies = await stack.db
      .selectFrom('chat_messages')
      .select(['role', 'status'])
      .where('chat_id', '=', chatId)
      .where('role', '=', 'assistant')
      .execute();
    expect(replies).toEqual([{ role: 'assistant', status: 'COMPLETED' }]);
    expect(
      await stack.db.selectFrom('change_reviews').select(['state', 'verdict']).where('chat_id', '=', chatId).execute(),
    ).toEqual([{ state: 'COMPLETED', verdict: 'Approved' }]);
    expect(
      await stack.db.selectFrom('chat_runs').select('run_id').where('chat_id', '=', chatId).execute(),
    ).toHaveLength(1);

    // A review that created, burned in and ran a new test across a worker crash: the history test/workflows/replay.test.ts replays.
    if (process.env.RECORD_HISTORIES) {
      const history = await (await stack.temporal.get()).workflow.getHandle(`chat:${shortId}`).fetchHistory();
      writeFileSync(join('test/workflows/histories', 'changeReview-new-test.json'), historyToJSON(history));
    }
  }, 300_000);

  it('the next review of the same branch runs the test the first one created instead of creating it again', async () => {
    const { stack, llm } = crash;
    const [earlier] = await reviewTestCases();
    expect(earlier).toMatchObject({ generation_status: 'COMPLETED' });
    const prompts: string[] = [];
    llm.reset();
    // The model proposes the same new test again, and also picks the earlier one when it is offered.
    const model = reviewResponder({
      select: (prompt) => {
        prompts.push(prompt);
        return {
          existingTestCaseIds: prompt.includes(earlier!.id) ? [earlier!.id] : [],
          newTests: [
            {
              name: 'Checkout with express shipping',
              goal: checkoutGoal,
              applicationShortId: appShortId,
              resumeFromTestCaseId: loginId,
            },
          ],
          reasoning: 'Express shipping changed again.',
        };
      },
      verdict: () => ({
        verdict: 'Approved',
        summary: 'Express checkout still works.',
        evaluationDetails: 'The checkout test passed.',
      }),
    });
    llm.enqueue(...Array.from({ length: 10 }, () => model));
    const { verdict, text } = await changeReviewAction(stack, request(), { timeoutMs: 180_000 });
    expect(prompts[0]).toContain(
      'Tests earlier reviews of this change created (1; recorded, not yet enabled for plans):',
    );
    expect(prompts[0]).toContain(`- ${earlier!.id} | Checkout with express shipping | Shop (${appShortId})`);
    expect(verdict, text).toBe('Approved');
    expect(text).toMatch(/\| Checkout with express shipping \| existing \| PASSED \|/);
    // No burn-in this time (no agent steps asked of the model), and still one review-created test case.
    expect(
      llm.requests.every((r) =>
        r.tools?.some((t) => t.type === 'function' && ['select_tests', 'write_verdict'].includes(t.function.name)),
      ),
    ).toBe(true);
    expect(await reviewTestCases()).toEqual([earlier]);
  }, 240_000);
});
