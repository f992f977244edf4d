// A run as its workflow writes it: started, the tests it runs (in a stable order), each test's start and result,
// skips, and the end. Every write is an idempotent update of one row's state, so a retried activity records once.
import type { DB } from '../database.js';
import type { FailureEvidence, FailureKind, StepChange } from '../../domain/verdicts.js';
import type { RunDownload } from '../../domain/step-events.js';

/** Whether this call started it (false: a retried activity, the run had started). The same for the writes below. */
export async function markRunStarted(db: DB, runId: string): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('runs')
    .set({ status: 'RUNNING', started_at: new Date() })
    .where('id', '=', runId)
    .where('status', '=', 'INITIATED')
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** The run's tests ordered by name, then id; `limit` from `offset` when given. */
export async function runPlanRows(db: DB, runId: string, page?: { offset?: number; limit: number }) {
  let query = db
    .selectFrom('run_test_cases as r')
    .leftJoin('application_builds as b', 'b.id', 'r.application_build_id')
    .innerJoin('runs as run', 'run.id', 'r.run_id')
    .innerJoin('projects as p', 'p.id', 'run.project_id')
    .select([
      'r.id',
      'r.test_case_id',
      'r.name',
      'r.environment_url',
      'r.device',
      'r.resume_from_test_case_id',
      'r.wait_for_test_case_ids',
      'r.status',
      'r.quarantined',
    ])
    .select(['b.short_id as build_short_id', 'b.platform as build_platform', 'p.test_retries'])
    .where('r.run_id', '=', runId)
    .where('r.test_case_id', 'is not', null)
    .orderBy('r.name')
    .orderBy('r.id');
  if (page) query = query.limit(page.limit).offset(page.offset ?? 0);
  return query.execute();
}

/** What a run's tests need when they run (their URL, build, device), by row: read by the activity that runs them. */
export async function planTestSettingRows(db: DB, runTestCaseIds: string[]) {
  if (runTestCaseIds.length === 0) return [];
  return db
    .selectFrom('run_test_cases as r')
    .leftJoin('application_builds as b', 'b.id', 'r.application_build_id')
    .select(['r.id', 'r.environment_url', 'r.device', 'b.short_id as build_short_id', 'b.platform as build_platform'])
    .where('r.id', 'in', runTestCaseIds)
    .execute();
}

/** The ids of every test case in the run. */
export async function runTestCaseIds(db: DB, runId: string): Promise<string[]> {
  return (
    await db
      .selectFrom('run_test_cases')
      .select('test_case_id')
      .where('run_id', '=', runId)
      .where('test_case_id', 'is not', null)
      .execute()
  ).map((r) => r.test_case_id!);
}

export async function markTestStarted(db: DB, runTestCaseId: string): Promise<boolean> {
  const started = async (from: 'PENDING' | 'RUNNING') =>
    (
      await db
        .updateTable('run_test_cases')
        .set({ status: 'RUNNING', started_at: new Date() })
        .where('id', '=', runTestCaseId)
        .where('status', '=', from)
        .executeTakeFirst()
    ).numUpdatedRows > 0n;
  // A retried activity starts the clock again, but the test started once.
  if (await started('PENDING')) return true;
  await started('RUNNING');
  return false;
}

/**
 * The outcome already recorded on a run's test row, or null while it has none: a test's activity that runs again
 * (its worker died after recording) returns the recorded outcome instead of replaying and maybe disagreeing with it.
 */
export async function recordedTestOutcome(
  db: DB,
  runTestCaseId: string,
): Promise<'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'CANCELLED' | null> {
  const row = await db
    .selectFrom('run_test_cases')
    .select(['status', 'result'])
    .where('id', '=', runTestCaseId)
    .executeTakeFirst();
  if (!row || row.status === 'PENDING' || row.status === 'RUNNING') return null;
  if (row.status === 'COMPLETED') return row.result === 'PASSED' ? 'PASSED' : 'FAILED';
  return row.status;
}

export interface TestResultWrite {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
  resultTitle: string;
  error?: string;
  failedStepIndex?: number;
  healed?: unknown[];
  screenshotKey?: string;
  traceKey?: string;
  durationMs?: number;
  changes?: StepChange[];
  failureKind?: FailureKind;
  evidence?: FailureEvidence;
  downloads?: RunDownload[];
  attempts: number;
  flaky: boolean;
}

/** A test's result; only while it is still in flight, so a retried write after a crash, or a late one after a cancel, changes nothing. */
export async function recordTestResult(db: DB, runTestCaseId: string, input: TestResultWrite): Promise<boolean> {
  const passed = input.outcome === 'PASSED';
  const { numUpdatedRows } = await db
    .updateTable('run_test_cases')
    .set({
      status: input.outcome === 'ERROR' ? 'ERROR' : 'COMPLETED',
      result: passed ? 'PASSED' : 'FAILED',
      result_title: input.resultTitle,
      error: input.error ?? null,
      failed_step_index: input.failedStepIndex ?? null,
      healed: input.healed?.length ? JSON.stringify(input.healed) : null,
      screenshot_key: input.screenshotKey ?? null,
      trace_key: input.traceKey ?? null,
      duration_ms: input.durationMs ?? null,
      changes: input.changes?.length ? JSON.stringify(input.changes) : null,
      failure_kind: passed ? null : (input.failureKind ?? null),
      evidence: !passed && input.evidence ? JSON.stringify(input.evidence) : null,
      downloads: input.downloads?.length ? JSON.stringify(input.downloads) : null,
      attempts: input.attempts,
      flaky: passed && input.flaky,
      finished_at: new Date(),
    })
    .where('id', '=', runTestCaseId)
    .where('status', 'in', ['PENDING', 'RUNNING'])
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** A test of the run that has not started, skipped with the reason. */
export async function skipTest(db: DB, runId: string, testCaseId: string, reason: string): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('run_test_cases')
    .set({ status: 'SKIPPED', result: 'SKIPPED', result_title: 'Skipped', error: reason, finished_at: new Date() })
    .where('run_id', '=', runId)
    .where('test_case_id', '=', testCaseId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** The run's end; a run that did not complete ends its tests still in flight too (CANCELLED or ERROR). */
export async function finishRun(
  db: DB,
  input: {
    runId: string;
    status: 'COMPLETED' | 'ERROR' | 'CANCELLED';
    result: 'PASSED' | 'FAILED' | 'SKIPPED' | null;
    error?: string;
  },
): Promise<{ ended: boolean; testsEnded: number }> {
  return db.transaction().execute(async (trx) => {
    // Locked, so two finishes of one run (a retried activity) tell which of them ended it.
    const before = await trx
      .selectFrom('runs')
      .select('status')
      .where('id', '=', input.runId)
      .forUpdate()
      .executeTakeFirst();
    let testsEnded = 0;
    if (input.status !== 'COMPLETED') {
      const { numUpdatedRows } = await trx
        .updateTable('run_test_cases')
        .set({
          status: input.status === 'CANCELLED' ? 'CANCELLED' : 'ERROR',
          finished_at: new Date(),
          error: input.status === 'CANCELLED' ? 'run cancelled' : (input.error ?? 'run failed'),
        })
        .where('run_id', '=', input.runId)
        .where('status', 'in', ['PENDING', 'RUNNING'])
        .executeTakeFirst();
      testsEnded = Number(numUpdatedRows);
    }
    await trx
      .updateTable('runs')
      .set({ status: input.status, result: input.result, error: input.error ?? null, finished_at: new Date() })
      .where('id', '=', input.runId)
      .execute();
    const ended = before !== undefined && !['COMPLETED', 'ERROR', 'CANCELLED'].includes(before.status);
    return { ended, testsEnded };
  });
}

/** Why the run's tests failed, each kind once in a stable order (none for a run where every test passed). */
export async function runFailureKinds(db: DB, runId: string): Promise<FailureKind[]> {
  const rows = await db
    .selectFrom('run_test_cases')
    .select('failure_kind')
    .distinct()
    .where('run_id', '=', runId)
    .where('failure_kind', 'is not', null)
    .orderBy('failure_kind')
    .execute();
  return rows.flatMap((r) => (r.failure_kind ? [r.failure_kind] : []));
}

export async function runShortIdById(db: DB, runId: string): Promise<string> {
  return (await db.selectFrom('runs').select('short_id').where('id', '=', runId).executeTakeFirstOrThrow()).short_id;
}
