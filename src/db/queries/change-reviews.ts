import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { ChangeReviewState } from '../schema.js';
import type { TestCaseSummary } from './test-case-views.js';
import type { ApplicationOverride } from '../../domain/precedence.js';
import type { ChangedFile, GitProviderId, ReviewVerdict } from '../../domain/git.js';
import type { ChangeReviewTestResult } from '../../../workflows/change-review-contract.js';
import type { SelectedRow } from './rows.js';

/** What a review looked at, stored once: a retried or replayed step reads this, never a newer head of the branch. */
export interface StoredChange {
  title: string;
  description: string;
  url?: string;
  headSha?: string;
  sourceBranch?: string;
  targetBranch?: string;
  files: ChangedFile[];
}

export interface ChangeReviewRecord {
  id: string;
  chatId: string;
  projectId: string;
  assistantMessageId: string;
  mode: 'pr' | 'rawChanges';
  source: 'api' | GitProviderId;
  provider: GitProviderId | null;
  prUrl: string | null;
  changeDescription: string | null;
  diff: string | null;
  context: string | null;
  applicationOverrides: ApplicationOverride[];
  metadata: Record<string, string>;
  change: StoredChange | null;
  state: ChangeReviewState;
  phase: string | null;
  runId: string | null;
  runShortId: string | null;
  verdict: ReviewVerdict | null;
  summary: string | null;
  tests: ChangeReviewTestResult[];
  failureReason: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

const selectReviews = (db: DB) =>
  db
    .selectFrom('change_reviews as cr')
    .leftJoin('runs as r', 'r.id', 'cr.run_id')
    .selectAll('cr')
    .select('r.short_id as run_short_id');

type Row = SelectedRow<typeof selectReviews>;

function toRecord(row: Row): ChangeReviewRecord {
  return {
    id: row.id,
    chatId: row.chat_id,
    projectId: row.project_id,
    assistantMessageId: row.assistant_message_id,
    mode: row.mode,
    source: row.source,
    provider: row.provider,
    prUrl: row.pr_url,
    changeDescription: row.change_description,
    diff: row.diff,
    context: row.context,
    applicationOverrides: (row.application_overrides as ApplicationOverride[] | null) ?? [],
    metadata: (row.metadata as Record<string, string> | null) ?? {},
    change: (row.change as StoredChange | null) ?? null,
    state: row.state,
    phase: row.phase,
    runId: row.run_id,
    runShortId: row.run_short_id,
    verdict: row.verdict,
    summary: row.summary,
    tests: (row.tests as ChangeReviewTestResult[] | null) ?? [],
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

export async function insertChangeReview(
  db: DB,
  input: Pick<
    ChangeReviewRecord,
    | 'id'
    | 'chatId'
    | 'projectId'
    | 'assistantMessageId'
    | 'mode'
    | 'source'
    | 'provider'
    | 'prUrl'
    | 'changeDescription'
    | 'diff'
    | 'context'
    | 'applicationOverrides'
    | 'metadata'
  >,
): Promise<void> {
  await db
    .insertInto('change_reviews')
    .values({
      id: input.id,
      chat_id: input.chatId,
      project_id: input.projectId,
      assistant_message_id: input.assistantMessageId,
      mode: input.mode,
      source: input.source,
      provider: input.provider,
      pr_url: input.prUrl,
      change_description: input.changeDescription,
      diff: input.diff,
      context: input.context,
      application_overrides: JSON.stringify(input.applicationOverrides),
      metadata: JSON.stringify(input.metadata),
    })
    .execute();
}

export async function findChangeReview(db: DB, id: string): Promise<ChangeReviewRecord | undefined> {
  const row = await selectReviews(db).where('cr.id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function findChangeReviewByChat(db: DB, chatId: string): Promise<ChangeReviewRecord | undefined> {
  const row = await selectReviews(db).where('cr.chat_id', '=', chatId).executeTakeFirst();
  return row && toRecord(row);
}

/** Stores the fetched change unless one is stored already; returns the stored one (the first fetch wins). */
export async function saveChange(db: DB, id: string, change: StoredChange): Promise<StoredChange> {
  await db
    .updateTable('change_reviews')
    .set({ change: JSON.stringify(change), updated_at: new Date() })
    .where('id', '=', id)
    .where('change', 'is', null)
    .execute();
  const row = await db.selectFrom('change_reviews').select('change').where('id', '=', id).executeTakeFirstOrThrow();
  return row.change as StoredChange;
}

/** Where an unfinished review is; a finished one is left as it ended. */
export async function setReviewPhase(db: DB, id: string, phase: string): Promise<void> {
  await db
    .updateTable('change_reviews')
    .set({ phase, state: 'RUNNING', updated_at: new Date() })
    .where('id', '=', id)
    .where('state', 'in', ['QUEUED', 'RUNNING'])
    .execute();
}

export async function setReviewRun(db: DB, id: string, runId: string): Promise<void> {
  await db.updateTable('change_reviews').set({ run_id: runId, updated_at: new Date() }).where('id', '=', id).execute();
}

export async function completeReview(
  db: DB,
  id: string,
  result: { verdict: ReviewVerdict; summary: string; tests: ChangeReviewTestResult[] },
): Promise<void> {
  const now = new Date();
  await db
    .updateTable('change_reviews')
    .set({
      state: 'COMPLETED',
      phase: 'done',
      verdict: result.verdict,
      summary: result.summary,
      tests: JSON.stringify(result.tests),
      updated_at: now,
      completed_at: now,
    })
    .where('id', '=', id)
    .where('state', 'in', ['QUEUED', 'RUNNING'])
    .execute();
}

export async function endReview(
  db: DB,
  id: string,
  state: 'FAILED' | 'CANCELLED',
  reason: string | null,
): Promise<void> {
  const now = new Date();
  await db
    .updateTable('change_reviews')
    .set({ state, phase: 'done', failure_reason: reason, updated_at: now, completed_at: now })
    .where('id', '=', id)
    .where('state', 'in', ['QUEUED', 'RUNNING'])
    .execute();
}

/**
 * The tests earlier completed reviews of the same change created and that recorded their steps, newest review
 * first: a pull/merge request is the same change by its address (every push to it is reviewed again); a raw diff
 * by the repository and branch its CI sent. Disabled until someone enables them, they are not in the enabled
 * catalogue, and without this every review of the change would create them again.
 */
export async function testsFromEarlierReviews(
  db: DB,
  review: Pick<ChangeReviewRecord, 'id' | 'projectId' | 'prUrl' | 'metadata'>,
  limit = 50,
): Promise<Pick<TestCaseSummary, 'id' | 'name' | 'goal' | 'applicationShortId' | 'applicationName'>[]> {
  let query = db
    .selectFrom('change_reviews')
    .select('tests')
    .where('project_id', '=', review.projectId)
    .where('id', '!=', review.id)
    .where('state', '=', 'COMPLETED');
  const { repository, branch } = review.metadata;
  if (review.prUrl) query = query.where('pr_url', '=', review.prUrl);
  else if (repository && branch) {
    query = query
      .where('pr_url', 'is', null)
      .where(sql<string>`metadata->>'repository'`, '=', repository)
      .where(sql<string>`metadata->>'branch'`, '=', branch);
  } else return [];
  const reviews = await query.orderBy('created_at', 'desc').limit(20).execute();
  const ids = [
    ...new Set(
      reviews.flatMap((r) =>
        ((r.tests as ChangeReviewTestResult[] | null) ?? []).filter((t) => t.origin === 'new').map((t) => t.testCaseId),
      ),
    ),
  ].slice(0, limit);
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('test_cases as tc')
    .innerJoin('applications as a', 'a.id', 'tc.application_id')
    .select(['tc.id', 'tc.name', 'tc.goal', 'a.short_id', 'a.name as application_name'])
    .where('tc.project_id', '=', review.projectId)
    .where('tc.id', 'in', ids)
    .where('tc.generation_status', '=', 'COMPLETED')
    .execute();
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows
    .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
    .map((r) => ({
      id: r.id,
      name: r.name,
      goal: r.goal,
      applicationShortId: r.short_id,
      applicationName: r.application_name,
    }));
}

/** What each test case's burn-in could not verify (its reservations), by id. */
export async function notCoveredByTestCase(db: DB, testCaseIds: string[]): Promise<Map<string, string[]>> {
  if (testCaseIds.length === 0) return new Map();
  const rows = await db.selectFrom('test_cases').select(['id', 'not_covered']).where('id', 'in', testCaseIds).execute();
  return new Map(rows.map((t) => [t.id, t.not_covered ?? []]));
}

/** The stored steps of test cases, by id, as stored (a list, or an object holding one). */
export async function storedSteps(db: DB, testCaseIds: string[]): Promise<{ id: string; steps: unknown }[]> {
  return db.selectFrom('test_cases').select(['id', 'steps']).where('id', 'in', testCaseIds).execute();
}
