// How many rows a table holds, for tests that check a refused write stored nothing (or a delete removed it).
import { sql } from 'kysely';
import type { DB } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';

/** Rows of `table`: only the project's when `projectId` is given (the table must have a project_id), else all. */
export async function countRows(db: DB, table: keyof Database, projectId?: string): Promise<number> {
  const where = projectId === undefined ? sql`` : sql`where project_id = ${projectId}`;
  const { rows } = await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)} ${where}`.execute(
    db,
  );
  return Number(rows[0]!.n);
}
