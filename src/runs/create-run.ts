import type { DB } from '../db/database.js';
import { getTestPlan } from '../db/queries/test-plans.js';
import {
  collectRunTests,
  insertRun,
  planTestCaseIds,
  resolveEnvironments,
  RunRequestError,
  type EnvironmentOverride,
  type RunMetadata,
} from '../db/queries/runs.js';

export interface CreatedRun {
  id: string;
  shortId: string;
  testCount: number;
  plan: { id: string; name: string; shortId: string };
}

/**
 * Writes a run of a plan (the project's default plan when none is named): the plan's enabled test cases
 * plus their transitive dependencies, each with its application's environment by precedence. Shared by
 * `POST /v1/run` and scheduled runs; throws RunRequestError (400/404) for what the caller got wrong.
 */
export async function createPlanRun(
  db: DB,
  projectId: string,
  input: { testPlanShortId?: string; testPlanId?: string; applications?: EnvironmentOverride[]; meta: RunMetadata; idempotencyKey?: string },
): Promise<CreatedRun> {
  let planShortId = input.testPlanShortId;
  if (!planShortId) {
    const planId =
      input.testPlanId ?? (await db.selectFrom('projects').select('default_test_plan_id').where('id', '=', projectId).executeTakeFirstOrThrow()).default_test_plan_id;
    const row = planId ? await db.selectFrom('test_plans').select('short_id').where('id', '=', planId).where('project_id', '=', projectId).executeTakeFirst() : undefined;
    if (!row) {
      throw input.testPlanId
        ? new RunRequestError(404, 'Test plan not found')
        : new RunRequestError(400, 'the project has no default test plan: pass testPlanShortId or make a plan the default');
    }
    planShortId = row.short_id;
  }
  const plan = await getTestPlan(db, projectId, planShortId);
  if (!plan) throw new RunRequestError(404, 'Test plan not found');

  const roots = await planTestCaseIds(db, plan.id);
  if (roots.length === 0) throw new RunRequestError(400, `test plan "${plan.name}" has no enabled test cases`, true);
  const tests = await collectRunTests(db, projectId, roots);
  const envs = await resolveEnvironments(db, projectId, [...new Set(tests.map((t) => t.application_id))], plan.id, input.applications ?? []);
  const inPlan = new Set(roots);
  const run = await insertRun(db, {
    projectId,
    planId: plan.id,
    meta: input.meta,
    idempotencyKey: input.idempotencyKey,
    tests: tests.map((t) => {
      const env = envs.get(t.application_id)!;
      return { testCase: t, inPlan: inPlan.has(t.id), environmentUrl: env.url, buildId: env.buildId, device: env.device };
    }),
  });
  return { ...run, testCount: tests.length, plan: { id: plan.id, name: plan.name, shortId: plan.shortId } };
}
