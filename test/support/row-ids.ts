// The internal id of a row the API created, for tests that then write rows referencing it straight into the
// database (the API answers with short ids only).
import { sql } from 'kysely';
import type { DB } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';

/** The tables whose rows have a short id (the one the API shows) next to their internal id. */
export type ShortIdTable = {
  [T in keyof Database]: Database[T] extends { id: string; short_id: string } ? T : never;
}[keyof Database];

/** The id of the row of `table` with this short id; throws when there is none. */
export async function rowIdOf(db: DB, table: ShortIdTable, shortId: string): Promise<string> {
  const row = await db.selectFrom(table).select('id').where('short_id', '=', shortId).executeTakeFirstOrThrow();
  return row.id;
}

/**
 * The short id of the project's oldest row of `table` (which must have a project_id), for a test that made it
 * through a form and so was never told it; throws when there is none.
 */
export async function firstShortIdOf(db: DB, table: ShortIdTable, projectId: string): Promise<string> {
  const { rows } = await sql<{ short_id: string }>`select short_id from ${sql.table(table)}
    where project_id = ${projectId} order by created_at limit 1`.execute(db);
  if (!rows[0]) throw new Error(`no row of ${table} in project ${projectId}`);
  return rows[0].short_id;
}
