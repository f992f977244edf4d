import { sql, type Insertable } from 'kysely';
import type { DB } from '../database.js';
import type { LlmUsageTable } from '../schema.js';

export type NewLlmUsageRow = Insertable<LlmUsageTable>;

/** Sums of a set of calls; `priced` counts the calls with a cost (all priced: the cost sum is the whole cost). */
export interface UsageSums {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  estimated: boolean;
  cost_usd: number | null;
  priced: number;
}

// Sums come back as bigint (text in pg, a number in PGlite): cast so both are numbers.
const sums = {
  calls: sql<number>`count(*)::int`.as('calls'),
  prompt_tokens: sql<number>`coalesce(sum(prompt_tokens), 0)::float8`.as('prompt_tokens'),
  completion_tokens: sql<number>`coalesce(sum(completion_tokens), 0)::float8`.as('completion_tokens'),
  cached_tokens: sql<number>`coalesce(sum(cached_tokens), 0)::float8`.as('cached_tokens'),
  estimated: sql<boolean>`coalesce(bool_or(estimated), false)`.as('estimated'),
  cost_usd: sql<number | null>`sum(cost_usd)`.as('cost_usd'),
  priced: sql<number>`count(cost_usd)::int`.as('priced'),
};

/** Every sum, for a select that groups by something of its own (or by nothing: the whole set). */
const allSums = [
  sums.calls,
  sums.prompt_tokens,
  sums.completion_tokens,
  sums.cached_tokens,
  sums.estimated,
  sums.cost_usd,
  sums.priced,
] as const;

/** The day of a call in UTC, as `YYYY-MM-DD`: what the usage page groups by. */
const utcDay = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`;

/** The project's calls in `[from, to)`. */
const callsBetween = (db: DB, projectId: string, from: Date, to: Date) =>
  db
    .selectFrom('llm_usage')
    .where('project_id', '=', projectId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to);

export async function insertLlmUsage(db: DB, row: NewLlmUsageRow): Promise<void> {
  await db.insertInto('llm_usage').values(row).execute();
}

/** What a piece of work's calls came to: a burn-in (test case), a run (its heals), a chat turn, a change review. */
export type UsageOf =
  | { testCaseId: string; purpose: 'burn_in' }
  | { runId: string }
  | { chatMessageId: string }
  | { changeReviewId: string };

export async function sumUsage(db: DB, projectId: string, of: UsageOf): Promise<UsageSums> {
  let q = db
    .selectFrom('llm_usage')
    .select([...allSums])
    .where('project_id', '=', projectId);
  if ('testCaseId' in of) q = q.where('test_case_id', '=', of.testCaseId).where('purpose', '=', of.purpose);
  else if ('runId' in of) q = q.where('run_id', '=', of.runId);
  else if ('chatMessageId' in of) q = q.where('chat_message_id', '=', of.chatMessageId);
  else q = q.where('change_review_id', '=', of.changeReviewId);
  return q.executeTakeFirstOrThrow();
}

/** Sums per assistant message of a chat (its turns), in one query. */
export async function sumUsageByChatMessage(
  db: DB,
  projectId: string,
  chatId: string,
): Promise<(UsageSums & { chat_message_id: string })[]> {
  const rows = await db
    .selectFrom('llm_usage')
    .select(['chat_message_id', ...allSums])
    .where('project_id', '=', projectId)
    .where('chat_id', '=', chatId)
    .where('chat_message_id', 'is not', null)
    .groupBy('chat_message_id')
    .execute();
  return rows.map((r) => ({ ...r, chat_message_id: r.chat_message_id! }));
}

/** Sums per UTC day of `[from, to)` (timestamps), days without calls left out, oldest first. */
export async function sumUsageByDay(
  db: DB,
  projectId: string,
  from: Date,
  to: Date,
): Promise<(UsageSums & { day: string })[]> {
  return callsBetween(db, projectId, from, to)
    .select([utcDay.as('day'), ...allSums])
    .groupBy(utcDay)
    .orderBy(utcDay)
    .execute();
}

/** Sums per UTC day and purpose of `[from, to)` (what the days' calls served). */
export async function sumUsageByDayAndPurpose(
  db: DB,
  projectId: string,
  from: Date,
  to: Date,
): Promise<(UsageSums & { day: string; purpose: string })[]> {
  return callsBetween(db, projectId, from, to)
    .select([utcDay.as('day'), 'purpose', ...allSums])
    .groupBy([utcDay, 'purpose'])
    .orderBy(utcDay)
    .execute();
}

export async function findLlmBudget(db: DB, projectId: string) {
  return db
    .selectFrom('llm_budgets')
    .select(['daily_tokens', 'daily_usd'])
    .where('project_id', '=', projectId)
    .executeTakeFirst();
}

export async function upsertLlmBudget(
  db: DB,
  projectId: string,
  budget: { daily_tokens: number | null; daily_usd: number | null },
): Promise<void> {
  await db
    .insertInto('llm_budgets')
    .values({ project_id: projectId, ...budget })
    .onConflict((oc) => oc.column('project_id').doUpdateSet({ ...budget, updated_at: new Date() }))
    .execute();
}
