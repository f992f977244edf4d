import type { Page } from 'playwright-core';
import { observe, redact, type Observation } from '../browser/snapshot.js';
import { countTokens } from './token-count.js';

// The page as every model call sees it (burn-in steps, heals, the assistant's look at a page): the aria snapshot
// compacted to the tokens the rest of the prompt leaves of one budget, its refs renumbered short (`e1`, `f1e3`,
// src/browser/snapshot-refs.ts) and mapped back through `obs.refs`, a ref never shown refused. One place, so the
// three prompts cannot drift apart in what a page costs or how a ref is read.

/** Issue 25: at most this many prompt tokens a model call, tools included. */
export const stepTokenBudget = 1_500;
/** The title and URL are read before the snapshot and counted; a navigation in between may change them a little. */
const titleMargin = 8;

export interface PageViewInput {
  page: Page;
  secrets: Record<string, string>;
  /** The agent's `find`: matches from the whole page follow the snapshot, within half its budget. */
  find?: string;
  /**
   * The snapshot's token budget, given the page with an empty snapshot (its title and URL as the prompt will show
   * them): what the rest of the prompt leaves of `stepTokenBudget`, or a floor the caller chooses.
   */
  budget: (empty: Observation) => number;
}

/** The page's title and URL, redacted, with no snapshot yet: what a prompt costs around the snapshot. */
export async function emptyView(page: Page, secrets: Record<string, string>): Promise<Observation> {
  const title = await page.title().catch(() => '');
  return { url: redact(page.url(), secrets), title: redact(title, secrets), snapshot: '', omittedLines: 0 };
}

export async function observeWithin(input: PageViewInput): Promise<Observation & { budget: number }> {
  const { page, secrets } = input;
  const budget = Math.max(1, Math.floor(input.budget(await emptyView(page, secrets)) - titleMargin));
  const obs = await observe(page, { redact: secrets, maxChars: budget, measure: countTokens, shortRefs: true, ...(input.find !== undefined && { find: input.find }) });
  return { ...obs, budget };
}
