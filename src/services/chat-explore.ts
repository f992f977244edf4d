// The assistant's look at a page: read-only (GET navigations only, nothing clicked or typed), a bounded number
// of same-origin pages, each described compactly from its aria snapshot.
import type { Page } from 'playwright-core';
import { pageFunction } from '../browser/page-function.js';
import type { BrowserPool } from '../browser/context/pool.js';
import type { Observation } from '../browser/record/snapshot.js';
import { observeWithin } from '../llm/page-view.js';
import { ChatToolError, type ToolContext } from './tools/tool.js';

export interface ExploreOptions {
  browsers: BrowserPool;
  /** Pages visited at most (the first one included). */
  pageBudget: number;
  timeoutMs: number;
  signal?: AbortSignal;
  onPage?: (url: string) => void;
  /** The conversation's project: its private remote tunnels are explorable, others' are not. */
  projectId: string;
}

const maxLinesPerPage = 40;
/**
 * A page's snapshot before its structure is picked out, in the model's tokens (it was 4,000 characters). Smaller
 * than a burn-in step's page budget on purpose: explore reports several pages in one tool result and keeps 40 lines
 * of each, and the landmark view (issue 32) puts `main` first, so those lines are the page's content, not its sidebar.
 */
export const exploreSnapshotTokens = 1_000;

/** Runs in the page (source text: see browser/page-function.ts): each link's resolved URL. */
const linkHrefs = pageFunction<(links: Element[]) => string[]>(`(links) => links.map((a) => a.href)`);

export async function explorePage(input: { url: string }, opts: ExploreOptions): Promise<string> {
  const raw = input.url;
  let start: URL;
  try {
    start = new URL(raw);
  } catch {
    throw new ChatToolError(`"${raw}" is not a URL`);
  }
  if (!/^https?:$/.test(start.protocol)) throw new ChatToolError('only http(s) URLs can be explored');

  return opts.browsers.withContext(
    { signal: opts.signal, timeoutMs: opts.timeoutMs, projectId: opts.projectId },
    async ({ page }) => {
      const queue = [start.toString()];
      const visited = new Set<string>();
      const reports: string[] = [];
      while (queue.length > 0 && visited.size < opts.pageBudget) {
        const url = queue.shift()!;
        if (visited.has(url)) continue;
        visited.add(url);
        opts.onPage?.(url);
        try {
          await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 15_000 });
        } catch (err) {
          reports.push(
            `${url}: could not be opened (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
          );
          continue;
        }
        reports.push(await describe(page));
        for (const link of await sameOriginLinks(page, start.origin)) if (!visited.has(link)) queue.push(link);
      }
      return reports.join('\n\n');
    },
  );
}

async function describe(page: Page): Promise<string> {
  // The compaction every model call uses (short refs, counted in tokens), though no ref reaches the assistant.
  const obs = await observeWithin({ page, secrets: {}, budget: () => exploreSnapshotTokens });
  return describeObservation(obs);
}

/** A page's report for the assistant: its title, URL and structure, without refs. */
export function describeObservation(obs: Observation): string {
  // Structure a reader cares about: headings, links, buttons, form fields; refs are useless outside the agent.
  const lines = obs.snapshot
    .split('\n')
    .filter((l) => /- (heading|link|button|textbox|combobox|checkbox|radio|form)\b/.test(l))
    .map((l) => l.replace(/ \[ref=[^\]]+\]/g, '').trimEnd());
  const shown = lines.slice(0, maxLinesPerPage);
  return [
    `Page "${obs.title}" at ${obs.url}:`,
    ...shown,
    ...(lines.length > shown.length ? [`  … ${lines.length - shown.length} more elements`] : []),
  ].join('\n');
}

async function sameOriginLinks(page: Page, origin: string): Promise<string[]> {
  const hrefs = await page.$$eval('a[href]', linkHrefs);
  return [...new Set(hrefs.filter((h) => h.startsWith(origin)).map((h) => h.split('#')[0]!))];
}

/** The assistant's explore_page tool: three pages at most, within 90 s. */
export async function exploreTool(ctx: ToolContext, input: { url: string }): Promise<string> {
  if (!ctx.browsers) throw new Error('explore_page needs the worker’s browser pool');
  return explorePage(input, {
    browsers: ctx.browsers,
    projectId: ctx.projectId,
    pageBudget: 3,
    timeoutMs: 90_000,
    signal: ctx.signal,
    onPage: (url) => ctx.progress?.({ url }),
  });
}
