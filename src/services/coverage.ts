// The coverage map and the suggested tests of an application (issue 34), for the API, the chat and change reviews.
// The discovery's map (its page patterns and forms) is loaded by the caller from the discovery tables; the tests and
// their last passes are loaded here.
import { coverageTestRows } from '../db/queries/coverage-tests.js';
import { computeCoverage, type Coverage, type MapPattern } from '../domain/coverage.js';
import { coveredTests } from '../domain/coverage-tests.js';
import { suggestionCandidates, type FreshItems } from '../domain/suggestions.js';
import type { Llm } from '../llm/client.js';
import { wordSuggestions, type SuggestionContext, type WordingResult } from '../llm/discovery-suggest.js';
import type { ServiceContext } from './context.js';

/** What the application's enabled tests cover of `map`; `environmentUrl`: where its tests start (its environment's URL). */
export async function applicationCoverage(
  { db }: ServiceContext,
  input: { projectId: string; applicationId: string; environmentUrl: string; map: readonly MapPattern[] },
): Promise<Coverage> {
  const rows = await coverageTestRows(db, input.projectId, input.applicationId);
  return computeCoverage(input.map, coveredTests(rows, input.environmentUrl), input.environmentUrl);
}

/**
 * The tests to suggest for `map`, best first, worded by `llm` (metered by the caller for the project's budget) or,
 * without it, by the map. `known`: fingerprints of suggestions rejected, pending or accepted, never proposed again.
 */
export async function proposeSuggestions(
  llm: Llm | undefined,
  input: {
    map: readonly MapPattern[];
    coverage: Coverage;
    known: ReadonlySet<string>;
    context: SuggestionContext;
    max?: number;
    /** What is new since the application's previous discovery: always suggested (src/domain/suggestions.ts). */
    fresh?: FreshItems;
  },
): Promise<WordingResult> {
  const candidates = suggestionCandidates(input.map, input.coverage, {
    known: input.known,
    max: input.max,
    fresh: input.fresh,
  });
  return wordSuggestions(llm, candidates, input.context);
}
