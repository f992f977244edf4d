import { sql, type Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { IssuesTable, QualitySignalsTable } from '../schema.js';
import type { IssueStatus, Severity, SignalCounts, SignalKind } from '../../domain/quality.js';
import { findProjectRow } from './project-rows.js';

export type IssueRow = Selectable<IssuesTable>;
export type SignalRow = Selectable<QualitySignalsTable>;
export type NewSignalRow = Omit<SignalRow, 'created_at'>;

/** Where a run test case's signals go: its project and test, whether it passed, and whether its run was a change review's. */
export async function findRunTestCaseForSignals(db: DB, runTestCaseId: string) {
  return db
    .selectFrom('run_test_cases as t')
    .innerJoin('runs as r', 'r.id', 't.run_id')
    .select(['r.project_id', 't.test_case_id', 't.result', 'r.trigger'])
    .where('t.id', '=', runTestCaseId)
    .executeTakeFirst();
}

/** Sets the counts once: false when they were already set (a retried write keeps the first one's signals). */
export async function claimSignalCounts(db: DB, runTestCaseId: string, counts: SignalCounts): Promise<boolean> {
  const updated = await db
    .updateTable('run_test_cases')
    .set({ signal_counts: JSON.stringify(counts) })
    .where('id', '=', runTestCaseId)
    .where('signal_counts', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

export async function insertSignals(db: DB, rows: NewSignalRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('quality_signals').values(rows).execute();
}

/** Whether the burn-in execution's signals are stored already (its activity was retried after storing them). */
export async function burnInSignalsStored(db: DB, burnIn: string): Promise<boolean> {
  return (
    (await db.selectFrom('quality_signals').select('id').where('burn_in', '=', burnIn).limit(1).executeTakeFirst()) !==
    undefined
  );
}

export async function findQualitySettings(db: DB, projectId: string) {
  return db
    .selectFrom('projects')
    .select(['issue_resolve_after_runs', 'signal_ignore_urls'])
    .where('id', '=', projectId)
    .executeTakeFirst();
}

/** Makes sure the issue exists (a new one with no occurrence yet) and returns it locked for this transaction. */
export async function lockIssue(
  db: DB,
  start: Omit<
    IssueRow,
    | 'status'
    | 'occurrences'
    | 'clean_runs'
    | 'pages'
    | 'test_case_ids'
    | 'exported'
    | 'first_seen_at'
    | 'last_seen_at'
    | 'resolved_at'
  >,
): Promise<IssueRow> {
  await db
    .insertInto('issues')
    .values({ ...start, pages: '[]', test_case_ids: '[]' })
    .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).doNothing())
    .execute();
  return db
    .selectFrom('issues')
    .selectAll()
    .where('project_id', '=', start.project_id)
    .where('fingerprint', '=', start.fingerprint)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export interface IssueChange {
  severity?: Severity;
  status?: IssueStatus;
  occurrences?: number;
  clean_runs?: number;
  pages?: string[];
  test_case_ids?: string[];
  last_seen_at?: Date;
  resolved_at?: Date | null;
  exported?: { provider: string; url: string };
}

export async function updateIssue(db: DB, id: string, change: IssueChange): Promise<void> {
  const { pages, test_case_ids, exported, ...rest } = change;
  await db
    .updateTable('issues')
    .set({
      ...rest,
      ...(pages && { pages: JSON.stringify(pages) }),
      ...(test_case_ids && { test_case_ids: JSON.stringify(test_case_ids) }),
      ...(exported && { exported: JSON.stringify(exported) }),
    })
    .where('id', '=', id)
    .execute();
}

/** The open issues a test has seen, locked: a clean run of it counts towards their resolving. */
export async function lockOpenIssuesOfTest(db: DB, projectId: string, testCaseId: string): Promise<IssueRow[]> {
  return db
    .selectFrom('issues')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('status', '=', 'open')
    .where(sql<boolean>`test_case_ids @> ${JSON.stringify([testCaseId])}::jsonb`)
    .forUpdate()
    .execute();
}

export interface IssueFilter {
  status?: IssueStatus;
  kind?: SignalKind;
  severity?: Severity;
}

export async function listIssues(
  db: DB,
  projectId: string,
  filter: IssueFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: IssueRow[]; total: number }> {
  let q = db.selectFrom('issues').where('project_id', '=', projectId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.kind) q = q.where('kind', '=', filter.kind);
  if (filter.severity) q = q.where('severity', '=', filter.severity);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('last_seen_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function findIssue(db: DB, projectId: string, id: string): Promise<IssueRow | undefined> {
  return findProjectRow(db, 'issues', projectId, 'id', id);
}

export async function findIssuesByFingerprints(db: DB, projectId: string, fingerprints: string[]): Promise<IssueRow[]> {
  if (fingerprints.length === 0) return [];
  return db
    .selectFrom('issues')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('fingerprint', 'in', fingerprints)
    .execute();
}

export async function signalsOfRunTestCase(db: DB, runTestCaseId: string): Promise<SignalRow[]> {
  return db
    .selectFrom('quality_signals')
    .selectAll()
    .where('run_test_case_id', '=', runTestCaseId)
    .orderBy('step_index')
    .orderBy('created_at')
    .execute();
}

/**
 * The baseline of a test in a change review: its latest finished run outside change reviews (the base environment),
 * with signals collected.
 */
export async function findBaselineRunTestCase(
  db: DB,
  projectId: string,
  testCaseId: string,
): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('run_test_cases as t')
    .innerJoin('runs as r', 'r.id', 't.run_id')
    .select('t.id')
    .where('r.project_id', '=', projectId)
    .where('t.test_case_id', '=', testCaseId)
    .where('r.trigger', '!=', 'CHANGE_REVIEW')
    .where('t.signal_counts', 'is not', null)
    .orderBy('t.finished_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}
