// Which test cases a run executes: a plan's enabled test cases, or given roots, widened to every transitive
// dependency and put in dependency order. Kept apart from runs.ts (the run's rows and how they are read).
import type { DB } from '../database.js';
import { topologicalOrder } from '../../domain/dag.js';

export interface ProjectTestCase {
  id: string;
  name: string;
  goal: string | null;
  application_id: string;
  is_enabled: boolean;
  resume_from_test_case_id: string | null;
  wait_for_test_case_ids: string[];
  /** The manual flag (absent: not flagged). */
  quarantined?: boolean;
}

/** The test cases a run executes: the roots plus every transitive dependency, in dependency order. */
export async function collectRunTests(db: DB, projectId: string, rootIds: string[]): Promise<ProjectTestCase[]> {
  const all = await db
    .selectFrom('test_cases')
    .select([
      'id',
      'name',
      'goal',
      'application_id',
      'is_enabled',
      'resume_from_test_case_id',
      'wait_for_test_case_ids',
      'quarantined',
    ])
    .where('project_id', '=', projectId)
    .execute();
  const byId = new Map(all.map((t) => [t.id, t]));
  const edges = new Map(
    all.map((t) => [
      t.id,
      [...(t.resume_from_test_case_id ? [t.resume_from_test_case_id] : []), ...t.wait_for_test_case_ids].filter((d) =>
        byId.has(d),
      ),
    ]),
  );
  return topologicalOrder(
    edges,
    rootIds.filter((id) => byId.has(id)),
  ).map((id) => byId.get(id)!);
}

export async function planTestCaseIds(db: DB, planId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('test_plan_test_cases as p')
    .innerJoin('test_cases as t', 't.id', 'p.test_case_id')
    .select('t.id')
    .where('p.test_plan_id', '=', planId)
    .where('t.is_enabled', '=', true)
    .orderBy('p.position')
    .execute();
  return rows.map((r) => r.id);
}
