// Suggested tests of a discovery (issue 34): written when the discovery completes (the workflow's
// `suggestDiscoveryTests` activity), listed best first, and decided once: accepting one creates its test case
// through the same service as POST /v1/test-cases (so it burns in as any other), rejecting one keeps its fingerprint,
// so no later discovery of the project proposes it again.
import { listDiscoveries, type DiscoveryRow } from '../db/queries/discoveries.js';
import {
  countSuggestions,
  decideSuggestion,
  findSuggestion,
  insertSuggestions,
  knownFingerprints,
  listSuggestions,
  setSuggestionTestCase,
  undoAcceptance,
  type NewSuggestion,
  type SuggestionRow,
} from '../db/queries/discovery-suggestions.js';
import { formId } from '../domain/coverage.js';
import { diffDiscoveryMaps } from '../domain/discovery-map.js';
import type { SuggestionCovers, SuggestionStatus } from '../domain/discovery-run.js';
import type { FreshItems } from '../domain/suggestions.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { suggestionCandidates } from '../domain/suggestions.js';
import type { Llm } from '../llm/client.js';
import { coverageMapOf } from './application-coverage.js';
import { requireApplication } from './applications.js';
import type { ServiceContext } from './context.js';
import { applicationCoverage, proposeSuggestions } from './coverage.js';
import { discoveryView, requireDiscovery, type DiscoveryView } from './discoveries.js';
import { mapOf } from './discovery-map.js';
import { createTestCase } from './test-cases.js';

/** A suggestion as written (NewSuggestion, less its fingerprint), with its rank and what became of it. */
export interface SuggestionView extends Omit<NewSuggestion, 'fingerprint'> {
  id: string;
  rank: number;
  status: SuggestionStatus;
  testCaseId: string | null;
  createdAt: string;
  decidedAt: string | null;
}

const viewOf = (row: SuggestionRow): SuggestionView => ({
  id: row.id,
  rank: row.rank,
  status: row.status,
  name: row.name,
  goal: row.goal,
  expectedResult: row.expected_result,
  reason: row.reason,
  startUrl: row.start_url,
  covers: row.covers as SuggestionCovers,
  testCaseId: row.test_case_id,
  createdAt: row.created_at.toISOString(),
  decidedAt: row.decided_at?.toISOString() ?? null,
});

/**
 * Writes the discovery's suggestions: the forms and important pages no enabled test covers, minus what the project
 * was ever suggested (a rejected one never comes back), worded by `llm` (metered by the caller) or the map's plain
 * words. A discovery that has suggestions already (a retried activity) is left as it is.
 */
export async function writeDiscoverySuggestions(
  services: ServiceContext,
  llm: Llm | undefined,
  discovery: DiscoveryRow,
): Promise<{ written: number; calls: number; fallback?: string }> {
  if ((await countSuggestions(services.db, discovery.id)) > 0) return { written: 0, calls: 0 };
  const application = await requireApplication(services, discovery.project_id, discovery.application_short_id);
  const map = await coverageMapOf(services, discovery);
  const coverage = await applicationCoverage(services, {
    projectId: discovery.project_id,
    applicationId: discovery.application_id,
    environmentUrl: discovery.start_url,
    map,
  });
  const candidates = suggestionCandidates(map, coverage, { max: Number.POSITIVE_INFINITY });
  const known = await knownFingerprints(
    services.db,
    discovery.project_id,
    discovery.application_id,
    candidates.map((c) => c.fingerprint),
  );
  const proposed = await proposeSuggestions(llm, {
    map,
    coverage,
    known,
    fresh: await freshSince(services, discovery),
    context: { applicationName: application.name, intent: discovery.intent },
  });
  await insertSuggestions(
    services.db,
    discovery.id,
    discovery.project_id,
    proposed.suggestions.map((s) => ({
      name: s.name,
      goal: s.goal,
      expectedResult: s.expectedResult,
      reason: s.reason,
      startUrl: s.startPage,
      covers: { patterns: s.patterns, forms: s.forms },
      fingerprint: s.fingerprint,
    })),
  );
  return {
    written: proposed.suggestions.length,
    calls: proposed.calls,
    ...(proposed.fallback && { fallback: proposed.fallback }),
  };
}

/**
 * What the discovery found that the application's previous completed discovery had not (nothing for its first: all
 * of it is new, and the usual rules choose): each such page and form no test covers becomes a suggestion.
 */
async function freshSince(services: ServiceContext, discovery: DiscoveryRow): Promise<FreshItems | undefined> {
  const previous = (await listDiscoveries(services.db, discovery.project_id, discovery.application_id)).find(
    (d) => d.status === 'COMPLETED' && d.id !== discovery.id && d.created_at < discovery.created_at,
  );
  if (!previous) return undefined;
  const diff = diffDiscoveryMaps(await mapOf(services, previous.id), await mapOf(services, discovery.id));
  return {
    patterns: new Set(diff.patterns.added),
    forms: new Set(diff.forms.added.map(({ form }) => formId(form))),
  };
}

/** The discovery's suggestions, best first (none before it completed). */
export async function getDiscoverySuggestions(
  services: ServiceContext,
  projectId: string,
  discoveryShortId: string,
): Promise<{ discovery: DiscoveryView; suggestions: SuggestionView[] }> {
  const discovery = await requireDiscovery(services, projectId, discoveryShortId);
  const rows = await listSuggestions(services.db, discovery.id);
  return { discovery: discoveryView(discovery), suggestions: rows.map(viewOf) };
}

async function proposed(services: ServiceContext, projectId: string, discoveryShortId: string, id: string) {
  const discovery = await requireDiscovery(services, projectId, discoveryShortId);
  const row = await findSuggestion(services.db, discovery.id, id.toLowerCase());
  if (!row) throw new NotFoundError(`Suggestion ${id} of discovery ${discoveryShortId}`);
  if (row.status !== 'PROPOSED') throw decided(row);
  return { discovery, row };
}

const decided = (row: SuggestionRow) =>
  new ConflictError(
    `Suggestion ${row.id} was ${row.status.toLowerCase()} already${row.test_case_id ? ` (test case ${row.test_case_id})` : ''}; a suggestion is decided once`,
  );

/** Accepts the suggestion: its test case is created (disabled) and its burn-in starts, as POST /v1/test-cases does. */
export async function acceptSuggestion(
  services: ServiceContext<'temporal' | 'logger'>,
  projectId: string,
  discoveryShortId: string,
  id: string,
): Promise<SuggestionView> {
  const { discovery, row } = await proposed(services, projectId, discoveryShortId, id);
  // Claimed first: of two concurrent acceptances only one creates a test case.
  if (!(await decideSuggestion(services.db, row.id, 'ACCEPTED')))
    throw decided((await findSuggestion(services.db, discovery.id, row.id))!);
  let created: { id: string };
  try {
    created = await createTestCase(services, {
      projectId,
      applicationShortId: discovery.application_short_id,
      name: row.name,
      goal: row.goal,
      expectedResult: row.expected_result,
      // A discovery that started signed in (from a login test) suggests tests that need it too.
      ...(discovery.resume_from_test_case_id && {
        resumeFromDependencyProjectTestCaseId: discovery.resume_from_test_case_id,
      }),
    });
  } catch (err) {
    await undoAcceptance(services.db, row.id);
    throw err;
  }
  await setSuggestionTestCase(services.db, row.id, created.id);
  return viewOf((await findSuggestion(services.db, discovery.id, row.id))!);
}

/** Rejects the suggestion: no later discovery of the project proposes what it covers again. */
export async function rejectSuggestion(
  services: ServiceContext,
  projectId: string,
  discoveryShortId: string,
  id: string,
): Promise<SuggestionView> {
  const { discovery, row } = await proposed(services, projectId, discoveryShortId, id);
  const after = await decideSuggestion(services.db, row.id, 'REJECTED');
  if (!after) throw decided((await findSuggestion(services.db, discovery.id, row.id))!);
  return viewOf(after);
}
