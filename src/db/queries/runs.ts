import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { sql, type ExpressionBuilder } from 'kysely';
import type { DB } from '../database.js';
import { NotifiedCache } from '../notified-cache.js';
import type { Database } from '../schema.js';
import type { DeviceSettings } from '../../domain/device.js';
import { newId, newShortId } from '../../ids.js';
import { annotateSpan, currentTrace, spanAttr } from '../../tracing.js';
import { quarantinedTestIds } from './flakiness.js';
import type { ProjectTestCase } from './run-selection.js';
import type { SelectedRow } from './rows.js';

export interface RunMetadata {
  trigger: string;
  actor?: string;
  branch?: string;
  commitHash?: string;
  commitMessage?: string;
  repository?: string;
  notifications?: unknown;
}

export interface NewRunTest {
  testCase: ProjectTestCase;
  inPlan: boolean;
  environmentUrl: string | null;
  buildId?: string | null;
  device: DeviceSettings | null;
}

export async function insertRun(
  db: DB,
  input: {
    projectId: string;
    planId: string | null;
    rerunOf?: string;
    meta: RunMetadata;
    tests: NewRunTest[];
    idempotencyKey?: string;
  },
): Promise<{ id: string; shortId: string }> {
  if (input.idempotencyKey) {
    const existing = await db
      .selectFrom('runs')
      .select(['id', 'short_id'])
      .where('idempotency_key', '=', input.idempotencyKey)
      .executeTakeFirst();
    if (existing) return { id: existing.id, shortId: existing.short_id };
  }
  const id = newId();
  const shortId = newShortId('run');
  // Decided now, recorded on each row: the run's result and a review read it, whatever the rule says later.
  const quarantined = await quarantinedTestIds(
    db,
    input.projectId,
    input.tests.map((t) => ({ id: t.testCase.id, quarantined: t.testCase.quarantined ?? false })),
  );
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('runs')
      .values({
        id,
        short_id: shortId,
        project_id: input.projectId,
        test_plan_id: input.planId,
        rerun_of_run_id: input.rerunOf ?? null,
        trigger: input.meta.trigger,
        actor: input.meta.actor ?? null,
        branch: input.meta.branch ?? null,
        commit_hash: input.meta.commitHash ?? null,
        commit_message: input.meta.commitMessage ?? null,
        repository: input.meta.repository ?? null,
        notifications: input.meta.notifications ? JSON.stringify(input.meta.notifications) : null,
        test_count: input.tests.length,
        idempotency_key: input.idempotencyKey ?? null,
        // The request's trace: the run's workflow is started in it next.
        trace_id: currentTrace()?.traceId ?? null,
      })
      .execute();
    for (let i = 0; i < input.tests.length; i += 500) {
      await trx
        .insertInto('run_test_cases')
        .values(
          input.tests.slice(i, i + 500).map((t) => ({
            id: newId(),
            run_id: id,
            test_case_id: t.testCase.id,
            name: t.testCase.name,
            goal: t.testCase.goal,
            application_id: t.testCase.application_id,
            environment_url: t.environmentUrl,
            application_build_id: t.buildId ?? null,
            device: t.device ? JSON.stringify(t.device) : null,
            resume_from_test_case_id: t.testCase.resume_from_test_case_id,
            wait_for_test_case_ids: t.testCase.wait_for_test_case_ids,
            in_plan: t.inPlan,
            quarantined: quarantined.has(t.testCase.id),
          })),
        )
        .execute();
    }
  });
  annotateSpan({ [spanAttr.runId]: id, [spanAttr.runShortId]: shortId });
  return { id, shortId };
}

/** Runs with what every view of a run shows: the plan's name and the short id of the run it reruns. */
function selectRuns(db: DB) {
  return db
    .selectFrom('runs as r')
    .leftJoin('test_plans as p', 'p.id', 'r.test_plan_id')
    .leftJoin('runs as o', 'o.id', 'r.rerun_of_run_id')
    .selectAll('r')
    .select(['p.name as plan_name', 'p.short_id as plan_short_id', 'o.short_id as rerun_of_short_id']);
}

export type RunRow = SelectedRow<typeof selectRuns>;

export async function findRun(db: DB, projectId: string, shortId: string): Promise<RunRow | undefined> {
  return selectRuns(db).where('r.project_id', '=', projectId).where('r.short_id', '=', shortId).executeTakeFirst();
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The fields every API view of a run shares (the run view and each item of the run list). */
export function toRunFields(run: RunRow, appUrl: string) {
  return {
    id: run.id,
    shortId: run.short_id,
    url: `${appUrl}/runs/${run.short_id}`,
    status: run.status,
    result: run.result,
    trigger: run.trigger,
    testCount: run.test_count,
    testPlan: run.plan_name && run.plan_short_id ? { name: run.plan_name, shortId: run.plan_short_id } : null,
    createdAt: run.created_at.toISOString(),
    startedAt: iso(run.started_at),
    finishedAt: iso(run.finished_at),
  };
}

/** A test of a run that did not pass: failed, or skipped, errored or cancelled before it could. */
const didNotPass = (eb: ExpressionBuilder<Database, 'run_test_cases'>) =>
  eb.or([
    eb('run_test_cases.result', '=', 'FAILED'),
    eb('run_test_cases.status', 'in', ['ERROR', 'CANCELLED', 'SKIPPED']),
  ]);

export async function runTestRows(db: DB, runId: string, onlyFailed: boolean) {
  let q = db.selectFrom('run_test_cases').selectAll().where('run_id', '=', runId);
  if (onlyFailed) q = q.where(didNotPass);
  return q.orderBy('started_at').orderBy('name').execute();
}

export type RunTestSelection = 'failed' | 'all';
export type RunWithTests = NonNullable<Awaited<ReturnType<typeof readRunWithTests>>>;

/**
 * A run with its tests (all of them, or those that did not pass) in one round trip, the tests aggregated
 * as JSON: their timestamps arrive as strings. Without `tests`, the run alone.
 */
export async function findRunWithTests(
  db: DB,
  projectId: string,
  shortId: string,
  tests: RunTestSelection | undefined,
): Promise<RunWithTests | undefined> {
  return finishedRuns.read(
    db,
    `${projectId} ${shortId} ${tests ?? 'none'}`,
    () => readRunWithTests(db, projectId, shortId, tests),
    (run) => endedStatuses.has(run.status),
  );
}

const endedStatuses = new Set<string>(['COMPLETED', 'ERROR', 'CANCELLED']);

// What CI clients poll. A run that has ended is read from memory: what its view shows (its row, its tests,
// its plan's name and short id, the short id of the run it reruns) is kept exact by the triggers of migration
// 0013, which name the run or plan written (a finished run does still change: a late activity retry rewrites
// `finished_at`, its plan can be renamed or deleted). Only while the feed listens: a run is never cached on a
// change that might go unheard. Presigned links are made per request from the cached keys.
const finishedRuns = new NotifiedCache<RunWithTests>({
  channel: 'proctor_run_changes',
  max: 2_000,
  // Counted in tests: a run of 10,000 with `?testCases=all` is a large entry.
  size: { maxSize: 50_000, sizeOf: (run) => 1 + run.tests.length },
  stale: (change, run) =>
    change.runId === run.id || (change.planId !== undefined && change.planId === run.test_plan_id),
});

/** Drops cached runs read from a plan this process just changed: its next read must not race the notification. */
export const forgetRunsOfPlan = (planId: string): void => finishedRuns.forget({ planId });

async function readRunWithTests(db: DB, projectId: string, shortId: string, tests: RunTestSelection | undefined) {
  return selectRuns(db)
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('run_test_cases')
          .selectAll('run_test_cases')
          .whereRef('run_test_cases.run_id', '=', 'r.id')
          // A literal, so that without `tests` the planner drops the subquery instead of running it for nothing.
          .where((inner) => (tests === 'failed' ? didNotPass(inner) : sql<boolean>`${sql.lit(tests === 'all')}`))
          .orderBy('run_test_cases.started_at')
          .orderBy('run_test_cases.name'),
      ).as('tests'),
    )
    .where('r.project_id', '=', projectId)
    .where('r.short_id', '=', shortId)
    .executeTakeFirst();
}

export async function markRunError(db: DB, runId: string, error: string): Promise<void> {
  await db
    .updateTable('runs')
    .set({ status: 'ERROR', error, finished_at: new Date() })
    .where('id', '=', runId)
    .execute();
}

export interface RunFilter {
  testPlanId?: string;
  status?: string;
  limit: number;
  offset: number;
}

/** A project's runs, newest first, with the total that match. */
export async function listRuns(
  db: DB,
  projectId: string,
  filter: RunFilter,
): Promise<{ rows: RunRow[]; total: number }> {
  let rows = selectRuns(db).where('r.project_id', '=', projectId);
  let count = db
    .selectFrom('runs as r')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('r.project_id', '=', projectId);
  if (filter.testPlanId) {
    rows = rows.where('r.test_plan_id', '=', filter.testPlanId);
    count = count.where('r.test_plan_id', '=', filter.testPlanId);
  }
  if (filter.status) {
    rows = rows.where('r.status', '=', filter.status as never);
    count = count.where('r.status', '=', filter.status as never);
  }
  const [page, total] = await Promise.all([
    rows.orderBy('r.created_at', 'desc').orderBy('r.id').limit(filter.limit).offset(filter.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows: page, total: Number(total.n) };
}

/** The status and result of the project's newest run by creation (of one plan, when named). */
export async function latestRunOutcome(db: DB, projectId: string, testPlanId: string | undefined) {
  let query = db.selectFrom('runs').select(['status', 'result']).where('project_id', '=', projectId);
  if (testPlanId) query = query.where('test_plan_id', '=', testPlanId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}
