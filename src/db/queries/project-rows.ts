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
  return (await selectProjectRow(db, table, projectId, column, value)) as ProjectRow<T> | undefined;
}

/**
 * Kysely cannot follow a table name that is a type parameter, so the queries name their columns dynamically and
 * the typed functions around them say what the row is: the row of the table they were given.
 */
function selectProjectRow(db: DB, table: ProjectTable, projectId: string, column: string, value: unknown) {
  const { ref } = db.dynamic;
  return db
    .selectFrom(table)
    .selectAll()
    .where(ref('project_id'), '=', projectId)
    .where(ref(column), '=', value)
    .executeTakeFirst();
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

/** The project tables of named resources, which the API addresses by a short id. */
type ShortIdTable = { [T in KeyedTable]: Database[T] extends { short_id: string } ? T : never }[KeyedTable];

/**
 * The list and the get of a project's resource as the API shows it, each row made a view by `toView`; `get` adds the
 * row's id to the view, for the service that goes on to change or delete the row.
 */
export function projectViews<T extends ShortIdTable, V>(
  table: T,
  toView: (row: ProjectRow<T>) => V,
  orderBy: Column<T>,
) {
  return {
    list: async (db: DB, projectId: string): Promise<V[]> =>
      (await listProjectRows(db, table, projectId, orderBy)).map(toView),
    get: async (db: DB, projectId: string, shortId: string): Promise<(V & { id: string }) | undefined> => {
      const row = (await selectProjectRow(db, table, projectId, 'short_id', shortId)) as ProjectRow<T> | undefined;
      return row && { id: (row as { id: string }).id, ...toView(row) };
    },
  };
}
