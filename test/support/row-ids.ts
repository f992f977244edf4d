// The internal id of a row the API created, for tests that then write rows referencing it straight into the
// database (the API answers with short ids only).
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
