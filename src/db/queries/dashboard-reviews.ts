// The dashboard's list of change reviews, for one project only (one review's detail is the change-review service's
// view, as GET /v1/chat/{shortId}/review gives it).
import type { DB } from '../database.js';
import type { ChangeReviewState } from '../schema.js';
import type { ReviewVerdict } from '../../domain/git.js';
import type { SelectedRow } from './rows.js';

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

function selectReviews(db: DB, projectId: string) {
  return db
    .selectFrom('change_reviews as r')
    .innerJoin('chats as c', 'c.id', 'r.chat_id')
    .select([
      'c.short_id as chat_short_id',
      'c.title',
      'r.mode',
      'r.source',
      'r.pr_url',
      'r.state',
      'r.verdict',
      'r.created_at',
    ])
    .where('r.project_id', '=', projectId)
    .where('c.project_id', '=', projectId);
}

type Row = SelectedRow<typeof selectReviews>;

function toSummary(r: Row): ReviewSummary {
  return {
    chatShortId: r.chat_short_id,
    title: r.title,
    mode: r.mode,
    source: r.source,
    prUrl: r.pr_url,
    state: r.state,
    verdict: r.verdict,
    createdAt: r.created_at,
  };
}

/** A page of the project's change reviews, newest first, and how many there are. */
export async function listReviews(
  db: DB,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<{ reviews: ReviewSummary[]; total: number }> {
  const [rows, count] = await Promise.all([
    selectReviews(db, projectId)
      .orderBy('r.created_at', 'desc')
      .orderBy('r.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('change_reviews')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow(),
  ]);
  return { reviews: rows.map(toSummary), total: Number(count.n) };
}
