import type { Selectable } from 'kysely';
import type { DB } from '../database.js';
import type { Database } from '../schema.js';

type Table = keyof Database;

/** A row of a table as a query returns it. */
export type Row<T extends Table> = Selectable<Database[T]>;

/**
 * The one row of `table` whose columns have the values `match` gives (a key and its scope: the project, the test
 * case, the discovery...), or undefined. Kysely cannot follow a table name that is a type parameter, so the columns
 * are named dynamically and the signature says what the row is.
 */
export async function findRow<T extends Table>(
  db: DB,
  table: T,
  match: { [C in keyof Row<T>]?: Row<T>[C] },
): Promise<Row<T> | undefined> {
  const { ref } = db.dynamic;
  let query = db.selectFrom(table as Table).selectAll();
  for (const [column, value] of Object.entries(match)) query = query.where(ref(column), '=', value);
  return (await query.executeTakeFirst()) as Row<T> | undefined;
}

/** The row of the query a select function builds, e.g. `SelectedRow<typeof selectRuns>`: the columns it selects. */
export type SelectedRow<Select extends (...args: never[]) => { executeTakeFirstOrThrow(): Promise<unknown> }> = Awaited<
  ReturnType<ReturnType<Select>['executeTakeFirstOrThrow']>
>;
