import type { Page } from 'playwright-core';
import { observe, redact, type Observation } from '../browser/record/snapshot.js';
import { countTokens, fitsTokens } from './token-count.js';

// The page as every model call sees it (burn-in steps, heals, the assistant's look at a page): the aria snapshot
// compacted by landmarks to a token budget of its own, its refs renumbered short (`e1`, `f1e3`,
// src/browser/record/snapshot-refs.ts) and mapped back through `obs.refs`, a ref never shown refused. One place, so the
// three prompts cannot drift apart in what a page costs or how a ref is read.
//
// Issue 32: the page's budget is its own. It used to be what the rest of the prompt, tools included, left of 1,500
// tokens: 400 at most, so an admin page showed its banner and sidebar and cut its form. The system prompt and the
// tools are the stable prefix providers cache (OpenAI from 1,024 tokens, in 128-token blocks), the same at every
// step; what a step pays in full is the page and the history, so the page is what the budget is about.

/** A page's tokens in a model call unless configured (PROCTOR_LLM_PAGE_TOKENS): an admin page's main content whole. */
export const defaultPageTokens = 4_000;
/** The title and URL are read before the snapshot and counted; a navigation in between may change them a little. */
const titleMargin = 8;

export interface PageViewInput {
  page: Page;
  secrets: Record<string, string>;
  /** The agent's `find`s, oldest first: matches from the whole page follow the snapshot, within half its budget. */
  find?: string | string[];
  /** Of `find`, the one just asked: answered even when nothing matches. */
  findAsked?: string;
  /** The snapshot's token budget (with `find`'s answers), given the page with an empty snapshot. */
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
  const obs = await observe(page, {
    redact: secrets,
    maxChars: budget,
    measure: countTokens,
    fits: fitsTokens,
    shortRefs: true,
    ...(input.find !== undefined && { find: input.find }),
    ...(input.findAsked !== undefined && { findAsked: input.findAsked }),
  });
  return { ...obs, budget };
}
