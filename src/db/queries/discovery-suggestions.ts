// The tests suggested from a discovery's map (issue 34), and the latest completed discovery of an application that
// the coverage map is read from. A suggestion is written once per discovery and fingerprint (a retried activity
// writes nothing twice) and decided once (PROPOSED → ACCEPTED or REJECTED).
import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import { findRow } from './rows.js';
import type { DiscoverySuggestionsTable } from '../schema.js';
import type { SuggestionCovers } from '../../domain/discovery-run.js';
import { newId } from '../../ids.js';
import type { DiscoveryRow } from './discoveries.js';

export type SuggestionRow = Selectable<DiscoverySuggestionsTable>;

/** The application's newest COMPLETED discovery (by when it finished), undefined when it has none. */
export async function latestCompletedDiscovery(
  db: DB,
  projectId: string,
  applicationId: string,
): Promise<DiscoveryRow | undefined> {
  return db
    .selectFrom('discoveries as d')
    .innerJoin('applications as a', 'a.id', 'd.application_id')
    .leftJoin('environments as e', 'e.id', 'd.environment_id')
    .selectAll('d')
    .select(['a.short_id as application_short_id', 'e.short_id as environment_short_id'])
    .where('d.project_id', '=', projectId)
    .where('d.application_id', '=', applicationId)
    .where('d.status', '=', 'COMPLETED')
    .orderBy('d.finished_at', 'desc')
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Which of `among` were suggested for the application in any discovery, whatever became of them: none is proposed
 * again. Per application: two applications of a project can have the same paths, and one's decisions say nothing
 * about the other's. Asked only about a discovery's candidates (index `discovery_suggestions_project_fingerprint`),
 * not every fingerprint of every discovery ever run, which a daily schedule grows without end.
 */
export async function knownFingerprints(
  db: DB,
  projectId: string,
  applicationId: string,
  among: readonly string[],
): Promise<Set<string>> {
  if (among.length === 0) return new Set();
  const rows = await db
    .selectFrom('discovery_suggestions as s')
    .innerJoin('discoveries as d', 'd.id', 's.discovery_id')
    .select('s.fingerprint')
    .distinct()
    .where('s.project_id', '=', projectId)
    .where('d.application_id', '=', applicationId)
    .where('s.fingerprint', 'in', [...among])
    .execute();
  return new Set(rows.map((r) => r.fingerprint));
}

export async function countSuggestions(db: DB, discoveryId: string): Promise<number> {
  const row = await db
    .selectFrom('discovery_suggestions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('discovery_id', '=', discoveryId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface NewSuggestion {
  name: string;
  goal: string;
  expectedResult: string;
  reason: string;
  startUrl: string;
  covers: SuggestionCovers;
  fingerprint: string;
}

/** Writes the suggestions, ranked 1.. in the given order; one already there (same fingerprint) is kept. */
export async function insertSuggestions(
  db: DB,
  discoveryId: string,
  projectId: string,
  suggestions: readonly NewSuggestion[],
): Promise<void> {
  if (suggestions.length === 0) return;
  await db
    .insertInto('discovery_suggestions')
    .values(
      suggestions.map((s, i) => ({
        id: newId(),
        discovery_id: discoveryId,
        project_id: projectId,
        name: s.name,
        goal: s.goal,
        expected_result: s.expectedResult,
        start_url: s.startUrl,
        covers: JSON.stringify(s.covers),
        reason: s.reason,
        rank: i + 1,
        fingerprint: s.fingerprint,
      })),
    )
    .onConflict((oc) => oc.columns(['discovery_id', 'fingerprint']).doNothing())
    .execute();
}

/** A discovery's suggestions, best first. */
export async function listSuggestions(db: DB, discoveryId: string): Promise<SuggestionRow[]> {
  return db
    .selectFrom('discovery_suggestions')
    .selectAll()
    .where('discovery_id', '=', discoveryId)
    .orderBy('rank')
    .orderBy('id')
    .execute();
}

export async function findSuggestion(
  db: DB,
  discoveryId: string,
  suggestionId: string,
): Promise<SuggestionRow | undefined> {
  return findRow(db, 'discovery_suggestions', { discovery_id: discoveryId, id: suggestionId });
}

/** PROPOSED → `status`, once: undefined when it was decided already (by a concurrent request, say). */
export async function decideSuggestion(
  db: DB,
  id: string,
  status: 'ACCEPTED' | 'REJECTED',
): Promise<SuggestionRow | undefined> {
  return db
    .updateTable('discovery_suggestions')
    .set({ status, decided_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'PROPOSED')
    .returningAll()
    .executeTakeFirst();
}

/** Undoes an acceptance whose test case could not be written: the suggestion is PROPOSED again. */
export async function undoAcceptance(db: DB, id: string): Promise<void> {
  await db
    .updateTable('discovery_suggestions')
    .set({ status: 'PROPOSED', decided_at: null })
    .where('id', '=', id)
    .where('test_case_id', 'is', null)
    .execute();
}

export async function setSuggestionTestCase(db: DB, id: string, testCaseId: string): Promise<void> {
  await db.updateTable('discovery_suggestions').set({ test_case_id: testCaseId }).where('id', '=', id).execute();
}
