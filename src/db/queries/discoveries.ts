// The rows of a discovery (issue 34): the discovery itself, and one row per visited URL, written once (the unique
// (discovery, url) key makes a retried visit find the first one's row instead of adding another).
import { sql, type Selectable } from 'kysely';
import type { DB } from '../database.js';
import { findRow } from './rows.js';
import type { DiscoveriesTable, DiscoveryPagesTable } from '../schema.js';
import type { DiscoveredAction, DiscoveredForm, DiscoveryBudget, VisitedPage } from '../../domain/discovery.js';
import type { MapSourcePage } from '../../domain/discovery-map.js';
import type { DiscoveryStatus, DiscoveryStopReason } from '../../domain/discovery-run.js';
import { newId } from '../../ids.js';

export type DiscoveryRow = Selectable<DiscoveriesTable> & {
  application_short_id: string;
  environment_short_id: string | null;
};
export type DiscoveryPageRow = Selectable<DiscoveryPagesTable>;

export async function insertDiscovery(
  db: DB,
  row: {
    id: string;
    shortId: string;
    projectId: string;
    applicationId: string;
    environmentId: string;
    startUrl: string;
    budget: DiscoveryBudget;
    intent: string | null;
    resumeFromTestCaseId: string | null;
    workflowId: string;
  },
): Promise<void> {
  await db
    .insertInto('discoveries')
    .values({
      id: row.id,
      short_id: row.shortId,
      project_id: row.projectId,
      application_id: row.applicationId,
      environment_id: row.environmentId,
      start_url: row.startUrl,
      budget: JSON.stringify(row.budget),
      intent: row.intent,
      resume_from_test_case_id: row.resumeFromTestCaseId,
      workflow_id: row.workflowId,
    })
    .execute();
}

const selectDiscoveries = (db: DB) =>
  db
    .selectFrom('discoveries as d')
    .innerJoin('applications as a', 'a.id', 'd.application_id')
    .leftJoin('environments as e', 'e.id', 'd.environment_id')
    .selectAll('d')
    .select(['a.short_id as application_short_id', 'e.short_id as environment_short_id']);

/** The project's discovery by short id (undefined: none, or another project's). */
export async function findDiscovery(db: DB, projectId: string, shortId: string): Promise<DiscoveryRow | undefined> {
  return selectDiscoveries(db)
    .where('d.short_id', '=', shortId)
    .where('d.project_id', '=', projectId)
    .executeTakeFirst();
}

/** By id alone: for the worker, handed the id by the workflow. */
export async function getDiscovery(db: DB, id: string): Promise<DiscoveryRow | undefined> {
  return selectDiscoveries(db).where('d.id', '=', id).executeTakeFirst();
}

/** The status of each of these discoveries by short id; a discovery that was deleted is absent. */
export async function discoveryStatusesByShortId(db: DB, shortIds: string[]): Promise<Map<string, DiscoveryStatus>> {
  if (shortIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('discoveries')
    .select(['short_id', 'status'])
    .where('short_id', 'in', shortIds)
    .execute();
  return new Map(rows.map((r) => [r.short_id, r.status]));
}

/** An application's discoveries, newest first. */
export async function listDiscoveries(db: DB, projectId: string, applicationId: string): Promise<DiscoveryRow[]> {
  return selectDiscoveries(db)
    .where('d.project_id', '=', projectId)
    .where('d.application_id', '=', applicationId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id')
    .limit(200)
    .execute();
}

/** The application's newest COMPLETED discovery created before `discovery`: what its news is compared with. */
export async function previousCompletedDiscovery(
  db: DB,
  discovery: Pick<DiscoveryRow, 'id' | 'project_id' | 'application_id' | 'created_at'>,
): Promise<DiscoveryRow | undefined> {
  return selectDiscoveries(db)
    .where('d.project_id', '=', discovery.project_id)
    .where('d.application_id', '=', discovery.application_id)
    .where('d.status', '=', 'COMPLETED')
    .where('d.id', '!=', discovery.id)
    .where('d.created_at', '<', discovery.created_at)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id')
    .limit(1)
    .executeTakeFirst();
}

/** QUEUED → RUNNING, once (a retried call or a continued chain leaves started_at as it was). */
export async function markDiscoveryStarted(db: DB, id: string): Promise<void> {
  await db
    .updateTable('discoveries')
    .set({ status: 'RUNNING', started_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'QUEUED')
    .execute();
}

/** Ends a discovery that is not ended yet (a retried call keeps the first end). */
export async function finishDiscoveryRow(
  db: DB,
  id: string,
  end: {
    status: Extract<DiscoveryStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>;
    stopReason: DiscoveryStopReason | null;
    error: string | null;
  },
): Promise<void> {
  await db
    .updateTable('discoveries')
    .set({ status: end.status, stop_reason: end.stopReason, error: end.error, finished_at: new Date() })
    .where('id', '=', id)
    .where('status', 'in', ['QUEUED', 'RUNNING'])
    .execute();
}

/** The row of a visited URL of the discovery, if it was visited. */
async function findDiscoveryPage(db: DB, discoveryId: string, url: string): Promise<DiscoveryPageRow | undefined> {
  return findRow(db, 'discovery_pages', { discovery_id: discoveryId, url });
}

/**
 * Stores a visit and counts it on the discovery, in one statement (a data-modifying CTE is atomic, and costs one
 * round trip where a transaction cost four); a row there already (an earlier attempt of the same visit that
 * committed before its worker died) is kept and returned, and nothing is counted twice.
 */
export async function storeDiscoveryPage(
  db: DB,
  discoveryId: string,
  page: VisitedPage,
): Promise<{ row: DiscoveryPageRow; inserted: boolean }> {
  const inserted = await db
    .with('inserted', (q) =>
      q
        .insertInto('discovery_pages')
        .values({
          id: newId(),
          discovery_id: discoveryId,
          url: page.url,
          final_url: page.finalUrl,
          pattern: page.pattern,
          status: page.status,
          title: page.title,
          headings: JSON.stringify(page.headings),
          forms: JSON.stringify(page.forms),
          actions: JSON.stringify(page.actions),
          links: JSON.stringify(page.links),
          actions_used: page.actionsUsed,
          operated: JSON.stringify(page.operated ?? []),
          error: page.error,
        })
        .onConflict((oc) => oc.columns(['discovery_id', 'url']).doNothing())
        .returningAll(),
    )
    .with('counted', (q) =>
      q
        .updateTable('discoveries')
        .set({ pages: sql`pages + 1`, actions: sql`actions + ${page.actionsUsed}` })
        .where('id', '=', discoveryId)
        .where(sql<boolean>`exists (select 1 from inserted)`)
        .returning('id'),
    )
    .selectFrom('inserted')
    .selectAll()
    .executeTakeFirst();
  if (inserted) return { row: inserted as DiscoveryPageRow, inserted: true };
  const stored = await findDiscoveryPage(db, discoveryId, page.url);
  if (!stored) throw new Error(`discovery page ${page.url}: neither inserted nor stored`);
  return { row: stored, inserted: false };
}

/**
 * What a page visit needs before it opens the page, in one round trip: the discovery's start URL and application,
 * the row of the URL when an earlier attempt stored it, and every control and search the discovery's visits
 * operated so far (the next visits skip them: a header's menu). The operated keys are read only from the rows that
 * operated something (the partial index `discovery_pages_operated`, migration 0140): at most one row per action
 * spent, where reading every page row cost a discovery of n pages ~n²/2 rows.
 */
export async function discoveryVisitContext(
  db: DB,
  discoveryId: string,
  url: string,
): Promise<
  { startUrl: string; applicationId: string; stored: DiscoveryPageRow | undefined; operated: string[] } | undefined
> {
  const row = await db
    .selectFrom('discoveries as d')
    .leftJoin('discovery_pages as p', (join) => join.onRef('p.discovery_id', '=', 'd.id').on('p.url', '=', url))
    .select(['d.start_url', 'd.application_id'])
    .select(sql<DiscoveryPageRow | null>`to_jsonb(p.*)`.as('stored'))
    .select(
      sql<string[] | null>`(select array_agg(distinct k.key) from discovery_pages o
        cross join lateral jsonb_array_elements_text(o.operated) as k(key)
        where o.discovery_id = d.id and o.operated <> '[]'::jsonb)`.as('operated'),
    )
    .where('d.id', '=', discoveryId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    startUrl: row.start_url,
    applicationId: row.application_id,
    stored: row.stored?.id ? revivePageRow(row.stored) : undefined,
    operated: row.operated ?? [],
  };
}

/** A page row read through to_jsonb: its timestamp comes back as text. */
function revivePageRow(row: DiscoveryPageRow): DiscoveryPageRow {
  return { ...row, visited_at: new Date(row.visited_at) };
}

/** Visited URLs of a discovery in a stable order, a page at a time. */
export async function discoveryPageUrls(db: DB, discoveryId: string, offset: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('discovery_pages')
    .select('url')
    .where('discovery_id', '=', discoveryId)
    .orderBy('url')
    .offset(offset)
    .limit(limit)
    .execute();
  return rows.map((r) => r.url);
}

/**
 * Every page of a discovery as its map reads it, by pattern then URL: what the visits found, without their counters
 * and operated controls (read per visit, never by the map).
 */
export async function discoveryPages(db: DB, discoveryId: string): Promise<MapSourcePage[]> {
  const rows = await db
    .selectFrom('discovery_pages')
    .select([
      'url',
      'final_url as finalUrl',
      'pattern',
      'status',
      'title',
      'headings',
      'forms',
      'actions',
      'links',
      'error',
    ])
    .where('discovery_id', '=', discoveryId)
    .orderBy('pattern')
    .orderBy('url')
    .execute();
  // jsonb written from the same types (storeDiscoveryPage).
  return rows.map((row) => ({
    ...row,
    forms: row.forms as DiscoveredForm[],
    actions: row.actions as DiscoveredAction[],
  }));
}
