// What the dashboard's test-plan pages read that the API has no use for: per-plan counts for the list, and the
// names behind a plan's environment ids.
import type { DB } from '../database.js';
import { listTestPlans } from './test-plan-views.js';

export interface PlanSummary {
  shortId: string;
  name: string;
  description: string | null;
  isDefault: boolean;
  testCaseCount: number;
  scheduleCount: number;
}

export async function loadPlanSummaries(db: DB, projectId: string): Promise<PlanSummary[]> {
  const [plans, counts] = await Promise.all([
    listTestPlans(db, projectId),
    db
      .selectFrom('test_plan_schedules as s')
      .innerJoin('test_plans as p', 'p.id', 's.test_plan_id')
      .select((eb) => ['p.short_id', eb.fn.countAll<string>().as('n')])
      .where('p.project_id', '=', projectId)
      .groupBy('p.short_id')
      .execute(),
  ]);
  const schedules = new Map(counts.map((c) => [c.short_id, Number(c.n)]));
  return plans.map((p) => ({
    shortId: p.shortId,
    name: p.name,
    description: p.description,
    isDefault: p.isDefault,
    testCaseCount: p.testCases.length,
    scheduleCount: schedules.get(p.shortId) ?? 0,
  }));
}

export interface EnvironmentName {
  shortId: string;
  name: string;
  url: string | null;
  applicationName: string;
}

/** The project's environments among `shortIds`, with their application's name. */
export async function environmentNames(
  db: DB,
  projectId: string,
  shortIds: string[],
): Promise<Map<string, EnvironmentName>> {
  if (shortIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('environments as e')
    .innerJoin('applications as a', 'a.id', 'e.application_id')
    .select(['e.short_id', 'e.name', 'e.url', 'a.name as application_name'])
    .where('e.project_id', '=', projectId)
    .where('e.short_id', 'in', shortIds)
    .execute();
  return new Map(
    rows.map((r) => [
      r.short_id,
      { shortId: r.short_id, name: r.name, url: r.url, applicationName: r.application_name },
    ]),
  );
}
