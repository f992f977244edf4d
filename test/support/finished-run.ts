import { collectRunTests } from '../../src/db/queries/run-selection.js';
import { insertRun } from '../../src/db/queries/runs.js';
import {
  finishRun,
  markTestStarted,
  recordTestResult,
  skipTest,
  type TestResultWrite,
} from '../../src/db/queries/run-progress.js';
import type { DB } from '../../src/db/database.js';
import { sql } from 'kysely';

// A finished plan run written through the queries the run workflow's activities use (insertRun, markTestStarted,
// recordTestResult, skipTest, finishRun), for pages that show one: no worker needs to replay hundreds of tests.
// Only the clock is set afterwards: the queries stamp "now", a picture of a run needs its tests spread in time.

export interface PlannedTest {
  testCaseId: string;
  /** Seconds from the run's start. */
  start: number;
  end: number;
  /** Absent: passed. */
  outcome?: Omit<TestResultWrite, 'durationMs'> | 'skipped';
}

/** Writes the run of `planId` over `tests` (each test case of the plan once); returns its short id. */
export async function writeFinishedRun(
  db: DB,
  input: { projectId: string; planId: string | null; startedAt: Date; tests: PlannedTest[] },
): Promise<{ id: string; shortId: string }> {
  const cases = await collectRunTests(
    db,
    input.projectId,
    input.tests.map((t) => t.testCaseId),
  );
  const run = await insertRun(db, {
    projectId: input.projectId,
    planId: input.planId,
    meta: { trigger: 'api', branch: 'main' },
    tests: cases.map((testCase) => ({ testCase, inPlan: true, environmentUrl: null, device: null })),
  });
  const rows = await db
    .selectFrom('run_test_cases')
    .select(['id', 'test_case_id'])
    .where('run_id', '=', run.id)
    .execute();
  const rowOf = new Map(rows.map((r) => [r.test_case_id!, r.id]));
  const at = (s: number) => new Date(input.startedAt.getTime() + s * 1000);
  const timed: { id: string; started: Date | null; finished: Date }[] = [];
  for (const t of input.tests) {
    const id = rowOf.get(t.testCaseId)!;
    if (t.outcome === 'skipped') {
      await skipTest(db, run.id, t.testCaseId, 'a test it waits for did not pass');
      timed.push({ id, started: null, finished: at(t.end) });
      continue;
    }
    await markTestStarted(db, id);
    const outcome = t.outcome ?? { outcome: 'PASSED', resultTitle: 'Passed', attempts: 1, flaky: false };
    await recordTestResult(db, id, { ...outcome, durationMs: Math.round((t.end - t.start) * 1000) });
    timed.push({ id, started: at(t.start), finished: at(t.end) });
  }
  for (let i = 0; i < timed.length; i += 1000) {
    const chunk = timed
      .slice(i, i + 1000)
      .map((c) => ({ id: c.id, s: c.started?.toISOString() ?? null, f: c.finished }));
    await sql`update run_test_cases r set started_at = v.s::timestamptz, finished_at = v.f::timestamptz
      from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as v(id text, s text, f text)
      where r.id::text = v.id`.execute(db);
  }
  await finishRun(db, {
    runId: run.id,
    status: 'COMPLETED',
    result: input.tests.some((t) => typeof t.outcome === 'object' && t.outcome.outcome !== 'PASSED')
      ? 'FAILED'
      : 'PASSED',
  });
  const last = Math.max(...input.tests.map((t) => t.end));
  await db
    .updateTable('runs')
    .set({ started_at: at(0), finished_at: at(last) })
    .where('id', '=', run.id)
    .execute();
  return run;
}
