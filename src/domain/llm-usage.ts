// What the model costs: the tokens of each LLM call, what they served, their totals, the price table that turns
// them into money and the daily budget that stops new LLM work once it is spent.
import { DomainError } from './errors.js';

/** One call's tokens, as the server reported them (`estimated: false`) or estimated from the text sent and received. */
export interface LlmCallUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the server read from its prompt cache (a part of `promptTokens`); 0 when it did not say. */
  cachedTokens: number;
  estimated: boolean;
}

/** The work an LLM call served: a burn-in (its test case), a heal in a run, a chat turn, a change review. */
export type UsagePurpose = 'burn_in' | 'heal' | 'chat' | 'review';

export interface UsageSubject {
  projectId: string;
  purpose: UsagePurpose;
  testCaseId?: string;
  runId?: string;
  runTestCaseId?: string;
  chatId?: string;
  /** The assistant message of a chat turn. */
  chatMessageId?: string;
  changeReviewId?: string;
}

/** Totals as every API answer shows them; `estimated` when any call's tokens were estimated. */
export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  estimated: boolean;
  /** Present when every call's model has a price (PROCTOR_LLM_PRICES). */
  costUsd?: number;
}

export const noUsage: UsageTotals = {
  calls: 0,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  estimated: false,
};

/** US dollars per million tokens; `cached` defaults to `prompt` (a server without a cache discount). */
export interface ModelPrice {
  prompt: number;
  completion: number;
  cached?: number;
}
export type PriceTable = Record<string, ModelPrice>;

/** The call's cost, or undefined when its model has no price. Cached tokens are billed at the cached rate. */
export function costOf(usage: LlmCallUsage, prices: PriceTable | undefined): number | undefined {
  const price = prices?.[usage.model];
  if (!price) return undefined;
  const uncached = Math.max(0, usage.promptTokens - usage.cachedTokens);
  return (
    (uncached * price.prompt +
      usage.cachedTokens * (price.cached ?? price.prompt) +
      usage.completionTokens * price.completion) /
    1_000_000
  );
}

/** A project's daily LLM budget (UTC days); null fields: no limit of that kind. */
export interface LlmBudget {
  dailyTokens: number | null;
  dailyUsd: number | null;
}

/** Why the budget refuses more work today, or undefined while some is left. Tokens are prompt + completion. */
export function budgetRefusal(budget: LlmBudget | undefined, today: UsageTotals): string | undefined {
  if (!budget) return undefined;
  const tokens = today.promptTokens + today.completionTokens;
  if (budget.dailyTokens !== null && tokens >= budget.dailyTokens) {
    return `the project's daily LLM budget is spent (${tokens} of ${budget.dailyTokens} tokens today, UTC); raise it with PUT /v1/usage/budget or wait until tomorrow`;
  }
  if (budget.dailyUsd !== null && (today.costUsd ?? 0) >= budget.dailyUsd) {
    return `the project's daily LLM budget is spent (${(today.costUsd ?? 0).toFixed(4)} of ${budget.dailyUsd} USD today, UTC); raise it with PUT /v1/usage/budget or wait until tomorrow`;
  }
  return undefined;
}

/** New LLM work refused because the project's daily budget is spent: 429 for a caller, a non-retryable failure in a workflow. */
export class LlmBudgetExceededError extends DomainError {
  readonly kind = 'Exhausted';
  override readonly name = 'LlmBudgetExceededError';
}

/** A rough token count for servers that report no usage: about four characters a token for English and JSON. */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/**
 * Where an LLM adapter reports its calls (built by the activity for the work at hand; absent: not counted). The
 * adapter asks before each call, so a spent budget stops the next call, not only the next piece of work.
 */
export interface UsageMeter {
  /** Throws LlmBudgetExceededError when no more LLM calls may be made for this project today. */
  beforeCall(): Promise<void>;
  record(usage: LlmCallUsage): Promise<void>;
}
