import type { DB } from '../database.js';
import type { RunStatus } from '../schema.js';

/** The status of each of these runs by short id; a run that was deleted is absent. */
export async function runStatusesByShortId(db: DB, shortIds: string[]): Promise<Map<string, RunStatus>> {
  if (shortIds.length === 0) return new Map();
  const rows = await db.selectFrom('runs').select(['short_id', 'status']).where('short_id', 'in', shortIds).execute();
  return new Map(rows.map((r) => [r.short_id, r.status]));
}
