// What the dashboard shows of change reviews (the review helper's `change_reviews` rows), for one project only.
import type { DB } from '../database.js';
import type { ChangeReviewState } from '../schema.js';
import type { ChangeReviewTestResult } from '../../../workflows/shared.js';
import type { ReviewVerdict } from '../../git/provider.js';

export interface ReviewSummary {
  chatShortId: string;
  title: string | null;
  mode: 'pr' | 'rawChanges';
  source: 'api' | 'github' | 'gitlab';
  prUrl: string | null;
  state: ChangeReviewState;
  verdict: ReviewVerdict | null;
  createdAt: Date;
}

export interface ReviewDetail extends ReviewSummary {
  phase: string | null;
  summary: string | null;
  failureReason: string | null;
  changeDescription: string | null;
  tests: ChangeReviewTestResult[];
  runShortId: string | null;
  completedAt: Date | null;
}

function selectReviews(db: DB, projectId: string) {
  return db
    .selectFrom('change_reviews as r')
    .innerJoin('chats as c', 'c.id', 'r.chat_id')
    .leftJoin('runs as run', (join) => join.onRef('run.id', '=', 'r.run_id').on('run.project_id', '=', projectId))
    .select([
      'c.short_id as chat_short_id',
      'c.title',
      'r.mode',
      'r.source',
      'r.pr_url',
      'r.state',
      'r.verdict',
      'r.created_at',
      'r.phase',
      'r.summary',
      'r.failure_reason',
      'r.change_description',
      'r.tests',
      'r.completed_at',
      'run.short_id as run_short_id',
    ])
    .where('r.project_id', '=', projectId)
    .where('c.project_id', '=', projectId);
}

type Row = Awaited<ReturnType<ReturnType<typeof selectReviews>['executeTakeFirstOrThrow']>>;

function toDetail(r: Row): ReviewDetail {
  return {
    chatShortId: r.chat_short_id,
    title: r.title,
    mode: r.mode,
    source: r.source,
    prUrl: r.pr_url,
    state: r.state,
    verdict: r.verdict,
    createdAt: r.created_at,
    phase: r.phase,
    summary: r.summary,
    failureReason: r.failure_reason,
    changeDescription: r.change_description,
    tests: (r.tests as ChangeReviewTestResult[] | null) ?? [],
    runShortId: r.run_short_id,
    completedAt: r.completed_at,
  };
}

/** A page of the project's change reviews, newest first, and how many there are. */
export async function listReviews(db: DB, projectId: string, page: { limit: number; offset: number }): Promise<{ reviews: ReviewSummary[]; total: number }> {
  const [rows, count] = await Promise.all([
    selectReviews(db, projectId).orderBy('r.created_at', 'desc').orderBy('r.id').limit(page.limit).offset(page.offset).execute(),
    db.selectFrom('change_reviews').select((eb) => eb.fn.countAll<string>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow(),
  ]);
  return { reviews: rows.map(toDetail), total: Number(count.n) };
}

/** The change review a conversation holds, if it is one. */
export async function reviewOfChat(db: DB, projectId: string, chatShortId: string): Promise<ReviewDetail | undefined> {
  const row = await selectReviews(db, projectId).where('c.short_id', '=', chatShortId).executeTakeFirst();
  return row && toDetail(row);
}
