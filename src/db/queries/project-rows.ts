import { sql, type Selectable, type Updateable } from 'kysely';
import type { DB } from '../database.js';
import type { Database } from '../schema.js';

/** The tables whose rows belong to one project: each has a `project_id`. */
export type ProjectTable = {
  [T in keyof Database]: Database[T] extends { project_id: string } ? T : never;
}[keyof Database];

/** The project tables whose rows also have an `id` of their own. */
type KeyedTable = { [T in ProjectTable]: Database[T] extends { id: string } ? T : never }[ProjectTable];

/** A row of a project's table as a query returns it. */
export type ProjectRow<T extends ProjectTable> = Selectable<Database[T]>;

type Column<T extends ProjectTable> = keyof ProjectRow<T> & string;

/** The project tables that record when a row last changed. */
type StampedTable = { [T in KeyedTable]: Database[T] extends { updated_at: unknown } ? T : never }[KeyedTable];

/**
 * The one row of the project whose `column` is `value` (a short id, a name, an id). A row of another project is
 * not found, so a caller cannot reach across projects by guessing an id.
 */
export async function findProjectRow<T extends ProjectTable, C extends Column<T>>(
  db: DB,
  table: T,
  projectId: string,
  column: C,
  value: ProjectRow<T>[C],
): Promise<ProjectRow<T> | undefined> {
  const { ref } = db.dynamic;
  const row = await db
    .selectFrom(table as ProjectTable)
    .selectAll()
    .where(ref('project_id'), '=', projectId)
    .where(ref(column), '=', value)
    .executeTakeFirst();
  // Kysely cannot follow a table name that is a type parameter; the row is the one `table` names.
  return row as ProjectRow<T> | undefined;
}

/** Every row of the project, by `orderBy` and then by id, so that rows that tie come in one order every time. */
export async function listProjectRows<T extends KeyedTable>(
  db: DB,
  table: T,
  projectId: string,
  orderBy: Column<T>,
): Promise<ProjectRow<T>[]> {
  const { ref } = db.dynamic;
  const rows = await db
    .selectFrom(table as ProjectTable)
    .selectAll()
    .where(ref('project_id'), '=', projectId)
    .orderBy(ref(orderBy))
    .orderBy(ref('id'))
    .execute();
  return rows as ProjectRow<T>[];
}

/**
 * Sets the given columns of the row `id`; a column given as undefined is left as it is, and nothing is written when
 * none is given. `touch` also sets `updated_at` to now, for the tables that show when a row last changed.
 */
export async function updateProjectRow<T extends KeyedTable>(
  db: DB,
  table: T,
  id: string,
  values: Updateable<Database[T]>,
  opts: { touch?: T extends StampedTable ? boolean : never } = {},
): Promise<void> {
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  if (Object.keys(given).length === 0) return;
  const { ref } = db.dynamic;
  await db
    .updateTable(table as ProjectTable)
    .set(opts.touch ? { ...given, updated_at: sql<Date>`now()` } : given)
    .where(ref('id'), '=', id)
    .execute();
}
