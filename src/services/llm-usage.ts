// Usage accounting: what each piece of LLM work cost, per project per day, and the daily budget that refuses new
// LLM work once it is spent. Activities get a `UsageRecorder` (built once by the worker); the API reads totals here.
import type { DB } from '../db/database.js';
import {
  findLlmBudget,
  insertLlmUsage,
  sumUsage,
  sumUsageByChatMessage,
  sumUsageByDay,
  sumUsageByDayAndPurpose,
  upsertLlmBudget,
  type UsageOf,
  type UsageSums,
} from '../db/queries/llm-usage.js';
import { InvalidError } from '../domain/errors.js';
import {
  budgetRefusal,
  costOf,
  LlmBudgetExceededError,
  noUsage,
  type LlmBudget,
  type PriceTable,
  type UsageMeter,
  type UsageSubject,
  type UsageTotals,
  type LlmCallUsage,
  type UsagePurpose,
} from '../domain/llm-usage.js';
import { newId } from '../ids.js';
import { llmCalls, llmCost, llmTokens } from '../metrics.js';
import { systemActor, type AuditActor } from '../domain/audit.js';
import { recordAudit } from './audit-log.js';
import type { ServiceContext } from './context.js';

/** Hands out a meter per piece of work; the worker builds one with the price table (PROCTOR_LLM_PRICES). */
export interface UsageRecorder {
  meterFor(subject: UsageSubject): UsageMeter;
}

export function createUsageRecorder(deps: { db: DB; prices?: PriceTable }): UsageRecorder {
  return {
    meterFor: (subject) => ({
      beforeCall: () => assertLlmBudget(deps, subject.projectId),
      async record(usage) {
        const cost = costOf(usage, deps.prices);
        countUsage(subject.purpose, usage, cost);
        await insertLlmUsage(deps.db, {
          id: newId(),
          project_id: subject.projectId,
          purpose: subject.purpose,
          model: usage.model,
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          cached_tokens: usage.cachedTokens,
          estimated: usage.estimated,
          cost_usd: cost ?? null,
          test_case_id: subject.testCaseId ?? null,
          run_id: subject.runId ?? null,
          run_test_case_id: subject.runTestCaseId ?? null,
          chat_id: subject.chatId ?? null,
          chat_message_id: subject.chatMessageId ?? null,
          change_review_id: subject.changeReviewId ?? null,
        });
      },
    }),
  };
}

/** The call on the process's metrics (src/metrics.ts): the model is one the operator configured, a bounded label. */
function countUsage(role: UsagePurpose, usage: LlmCallUsage, cost: number | undefined): void {
  const labels = { role, model: usage.model };
  llmCalls.inc(labels);
  llmTokens.inc({ ...labels, kind: 'prompt' }, usage.promptTokens);
  llmTokens.inc({ ...labels, kind: 'completion' }, usage.completionTokens);
  llmTokens.inc({ ...labels, kind: 'cached' }, usage.cachedTokens);
  if (cost !== undefined) llmCost.inc(labels, cost);
}

export function toTotals(sums: UsageSums): UsageTotals {
  return {
    calls: sums.calls,
    promptTokens: Number(sums.prompt_tokens),
    completionTokens: Number(sums.completion_tokens),
    cachedTokens: Number(sums.cached_tokens),
    estimated: sums.estimated,
    // Money only when every call had a price: a partial sum would read as the whole cost.
    ...(sums.calls > 0 && sums.priced === sums.calls && { costUsd: roundUsd(Number(sums.cost_usd ?? 0)) }),
  };
}

const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

export async function usageTotals({ db }: ServiceContext, projectId: string, of: UsageOf): Promise<UsageTotals> {
  return toTotals(await sumUsage(db, projectId, of));
}

/** Each chat turn's totals by its assistant message id. */
export async function chatTurnUsage(
  { db }: ServiceContext,
  projectId: string,
  chatId: string,
): Promise<Map<string, UsageTotals>> {
  const rows = await sumUsageByChatMessage(db, projectId, chatId);
  return new Map(rows.map((r) => [r.chat_message_id, toTotals(r)]));
}

const utcDay = (d: Date): string => d.toISOString().slice(0, 10);
const startOfUtcDay = (d: Date): Date => new Date(`${utcDay(d)}T00:00:00.000Z`);

/** Spent today (UTC) against the budget, costs summed whether or not every call had a price. */
async function spentToday(db: DB, projectId: string, now = new Date()): Promise<UsageTotals> {
  const from = startOfUtcDay(now);
  const [day] = await sumUsageByDay(db, projectId, from, new Date(from.getTime() + 86_400_000));
  if (!day) return { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, estimated: false, costUsd: 0 };
  return { ...toTotals(day), costUsd: Number(day.cost_usd ?? 0) };
}

/** Throws LlmBudgetExceededError when the project's daily budget is spent (no budget: never). */
export async function assertLlmBudget({ db }: ServiceContext, projectId: string): Promise<void> {
  const budget = await getLlmBudget({ db }, projectId);
  if (budget.dailyTokens === null && budget.dailyUsd === null) return;
  const refusal = budgetRefusal(budget, await spentToday(db, projectId));
  if (refusal) throw new LlmBudgetExceededError(refusal);
}

export async function getLlmBudget({ db }: ServiceContext, projectId: string): Promise<LlmBudget> {
  const row = await findLlmBudget(db, projectId);
  return { dailyTokens: row?.daily_tokens == null ? null : Number(row.daily_tokens), dailyUsd: row?.daily_usd ?? null };
}

/** A project setting like the others: its change is in the audit log as `project_settings.updated`. */
export async function setLlmBudget(
  { db }: ServiceContext,
  projectId: string,
  budget: LlmBudget,
  actor: AuditActor = systemActor,
): Promise<LlmBudget> {
  if (budget.dailyTokens !== null && !(Number.isSafeInteger(budget.dailyTokens) && budget.dailyTokens >= 0))
    throw new InvalidError('dailyTokens: a whole number of tokens, 0 or more, or null');
  if (
    budget.dailyUsd !== null &&
    !(Number.isFinite(budget.dailyUsd) && budget.dailyUsd >= 0 && budget.dailyUsd <= 1e12)
  )
    throw new InvalidError('dailyUsd: an amount of US dollars, 0 or more, or null');
  await upsertLlmBudget(db, projectId, { daily_tokens: budget.dailyTokens, daily_usd: budget.dailyUsd });
  await recordAudit({ db }, { projectId, kind: 'project_settings.updated', actor, details: { llmBudget: budget } });
  return getLlmBudget({ db }, projectId);
}

const maxDays = 366;
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(name: string, value: string): Date {
  const date = new Date(`${value}T00:00:00.000Z`);
  // Years before 1970 hold no calls, and year 0 is not a year to every database.
  if (
    !dayPattern.test(value) ||
    Number.isNaN(date.getTime()) ||
    utcDay(date) !== value ||
    date.getUTCFullYear() < 1970
  ) {
    throw new InvalidError(`${name}: a date as YYYY-MM-DD (UTC), from 1970 on`);
  }
  return date;
}

/** What the calls served, as the API names it. */
const purposeNames = { burn_in: 'burnIn', heal: 'heal', chat: 'chat', review: 'review' } as const;

export interface UsageDay extends UsageTotals {
  date: string;
  /** The day's totals by what the calls served: burn-ins, heals in runs, chat turns, change reviews (only those with calls). */
  byPurpose: Partial<Record<(typeof purposeNames)[keyof typeof purposeNames], UsageTotals>>;
}

/**
 * The project's usage per UTC day from `from` to `to`, both included (default: the last 30 days to today), days
 * without calls left out, with the totals and the budget and what is spent of it today.
 */
export async function usageByDay(
  { db }: ServiceContext,
  projectId: string,
  input: { from?: string; to?: string },
  now = new Date(),
) {
  const to = input.to ? parseDay('to', input.to) : startOfUtcDay(now);
  const from = input.from ? parseDay('from', input.from) : new Date(to.getTime() - 29 * 86_400_000);
  if (from > to) throw new InvalidError('from: must not be after to');
  if ((to.getTime() - from.getTime()) / 86_400_000 + 1 > maxDays)
    throw new InvalidError(`from, to: at most ${maxDays} days at a time`);
  const end = new Date(to.getTime() + 86_400_000);
  const [rows, parts] = await Promise.all([
    sumUsageByDay(db, projectId, from, end),
    sumUsageByDayAndPurpose(db, projectId, from, end),
  ]);
  const byPurpose = (day: string): UsageDay['byPurpose'] =>
    Object.fromEntries(
      parts
        .filter((p) => p.day === day)
        .map((p) => [purposeNames[p.purpose as keyof typeof purposeNames] ?? p.purpose, toTotals(p)]),
    );
  const days: UsageDay[] = rows.map((r) => ({ date: r.day, ...toTotals(r), byPurpose: byPurpose(r.day) }));
  const total = toTotals(
    rows.reduce<UsageSums>(
      (sum, r) => ({
        calls: sum.calls + r.calls,
        prompt_tokens: sum.prompt_tokens + Number(r.prompt_tokens),
        completion_tokens: sum.completion_tokens + Number(r.completion_tokens),
        cached_tokens: sum.cached_tokens + Number(r.cached_tokens),
        estimated: sum.estimated || r.estimated,
        cost_usd: (sum.cost_usd ?? 0) + Number(r.cost_usd ?? 0),
        priced: sum.priced + r.priced,
      }),
      { calls: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, estimated: false, cost_usd: 0, priced: 0 },
    ),
  );
  const budget = await getLlmBudget({ db }, projectId);
  const today = await spentToday(db, projectId, now);
  return {
    from: utcDay(from),
    to: utcDay(to),
    days,
    total,
    budget: { ...budget, spentToday: today, exceeded: budgetRefusal(budget, today) !== undefined },
  };
}

/** A conversation with each assistant message carrying its turn's usage (an extension to the spec). */
export function withTurnUsage<V extends { messages: { id: string; role: string }[] }>(
  view: V,
  usage: Map<string, UsageTotals>,
): V {
  return {
    ...view,
    messages: view.messages.map((m) => (m.role === 'assistant' ? { ...m, usage: usage.get(m.id) ?? noUsage } : m)),
  };
}
