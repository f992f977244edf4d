import type { ActivityDeps } from './deps.js';
import { dependencyState } from './burn-in.js';
import { environmentAccess } from './environment-access.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import {
  discoveryPageUrls,
  discoveryVisitContext,
  finishDiscoveryRow,
  getDiscovery,
  markDiscoveryStarted,
  storeDiscoveryPage,
  type DiscoveryPageRow,
} from '../src/db/queries/discoveries.js';
import { NotFoundError } from '../src/domain/errors.js';
import type { BrowserState } from '../src/domain/steps.js';
import { defaultPerPattern, type DiscoveryStatus, type DiscoveryStopReason } from '../src/domain/discovery-run.js';
import type { VisitedPage } from '../src/domain/discovery.js';
import { RunValues } from '../src/domain/run-values.js';
import { visitPage } from '../src/browser/discovery/visit-page.js';
import { normalizeUrl, patternOf } from '../src/domain/page-patterns.js';
import { writeDiscoverySuggestions } from '../src/services/discovery-suggestions.js';
import { llmFor } from './llm-usage.js';
import {
  discoveryBlobKeys,
  frontierLinks,
  type FrontierEntry,
  type VisitOutcome,
} from '../workflows/discovery-contract.js';

/** One page's load and exploration; the activity's own bound (5 minutes) is far above it. */
const visitTimeoutMs = 30_000;

interface DiscoveryIds {
  discoveryId: string;
  projectId: string;
}

export function createDiscoveryActivities(deps: ActivityDeps) {
  const requireDiscovery = async (discoveryId: string) => {
    const discovery = await getDiscovery(deps.db, discoveryId);
    if (!discovery) throw new NotFoundError(`discovery ${discoveryId}`);
    return discovery;
  };
  const outcomeOf = (row: DiscoveryPageRow, visited: boolean, perPattern: number): VisitOutcome => ({
    url: row.url,
    pattern: row.pattern,
    links: frontierLinks(
      row.links.map((url): FrontierEntry => ({ url, pattern: patternOf(url) })),
      perPattern,
    ),
    actionsUsed: row.actions_used,
    visited,
  });

  return {
    /**
     * Marks the discovery RUNNING and says where it starts. A discovery resuming from a login test replays that
     * test's resume-from chain once, as a dependent's burn-in does, and stores the state every visit starts from.
     */
    async beginDiscovery(input: DiscoveryIds): Promise<{ start: FrontierEntry; stateKey: string | null }> {
      const discovery = await requireDiscovery(input.discoveryId);
      await markDiscoveryStarted(deps.db, discovery.id);
      const url = normalizeUrl(discovery.start_url, discovery.start_url) ?? discovery.start_url;
      const start = { url, pattern: patternOf(url) };
      if (!discovery.resume_from_test_case_id) return { start, stateKey: null };
      const state = await withHeartbeats(() =>
        dependencyState(deps, input.projectId, discovery.resume_from_test_case_id!, discovery.start_url),
      );
      const stateKey = discoveryBlobKeys.browserState(discovery.short_id);
      await deps.blobs.put(stateKey, Buffer.from(JSON.stringify(state)), 'application/json');
      return { start, stateKey };
    },

    /**
     * Visits one URL and stores what it found, once: when the URL's row exists (an attempt whose worker died after
     * storing it), its stored result is returned and nothing is visited again.
     */
    async visitDiscoveryPage(
      input: DiscoveryIds & { url: string; maxActions: number; stateKey: string | null; perPattern?: number },
    ): Promise<VisitOutcome> {
      // Visits scheduled before the workflow passed it ran with the default.
      const perPattern = input.perPattern ?? defaultPerPattern;
      // One read: the discovery, this URL's row if an earlier attempt stored it, and what earlier visits operated
      // (the header's menus and search: opening them on every page would spend the actions budget on what is known).
      const context = await discoveryVisitContext(deps.db, input.discoveryId, input.url);
      if (!context) throw new NotFoundError(`discovery ${input.discoveryId}`);
      if (context.stored) return outcomeOf(context.stored, false, perPattern);
      const origin = new URL(context.startUrl).origin;
      const skip = context.operated;
      const state = input.stateKey
        ? (JSON.parse((await deps.blobs.get(input.stateKey)).toString('utf8')) as BrowserState)
        : undefined;
      const access = await environmentAccess(deps, context.applicationId, context.startUrl, new RunValues());
      const page: VisitedPage = await withHeartbeats(() =>
        deps.browsers.withContext(
          { state, access, projectId: input.projectId, signal: cancellationSignal(), timeoutMs: visitTimeoutMs * 2 },
          ({ context }) =>
            visitPage(context, input.url, {
              origin,
              timeoutMs: visitTimeoutMs,
              maxActions: input.maxActions,
              skip,
            }),
        ),
      );
      const { row, inserted } = await storeDiscoveryPage(deps.db, input.discoveryId, page);
      return outcomeOf(row, inserted, perPattern);
    },

    /** Visited URLs, a page at a time: what a continued discovery must not admit again. */
    async discoveryVisitedUrls(input: { discoveryId: string; offset: number; limit: number }): Promise<string[]> {
      return discoveryPageUrls(deps.db, input.discoveryId, input.offset, input.limit);
    },

    /** Ends the discovery's row (once) and deletes the resume-from state: it holds a live session, nothing reads it now. */
    async finishDiscovery(
      input: DiscoveryIds & {
        status: Extract<DiscoveryStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>;
        stopReason: DiscoveryStopReason | null;
        error?: string | null;
        stateKey: string | null;
      },
    ): Promise<void> {
      await finishDiscoveryRow(deps.db, input.discoveryId, {
        status: input.status,
        stopReason: input.stopReason,
        error: input.error ?? null,
      });
      if (input.stateKey) await deps.blobs.delete(input.stateKey).catch(() => undefined);
    },

    /**
     * Writes the suggested tests of a discovery that explored to its end, before it is marked COMPLETED (a client
     * that sees COMPLETED finds them). The model words them, metered for the project under purpose `review` (the
     * model's judgment of what to test); no model or a spent budget words them from the map. A retry after they
     * were written writes nothing.
     */
    async suggestDiscoveryTests(input: DiscoveryIds): Promise<{ written: number; calls: number; fallback?: string }> {
      const discovery = await requireDiscovery(input.discoveryId);
      const llm = deps.llm && llmFor(deps, deps.llm, { projectId: input.projectId, purpose: 'review' });
      return writeDiscoverySuggestions(deps, llm, discovery);
    },
  };
}
