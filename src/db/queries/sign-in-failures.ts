// Failed dashboard sign-ins, shared by every API process of an installation (src/services/sign-in-throttle.ts).
// Raw SQL over one small table, so the throttle does not widen the typed schema every query module compiles against.
import { sql } from 'kysely';
import type { DB } from '../database.js';

export type FailureKind = 'address' | 'prefix';

/** The failure times of `key` since `since`, newest first, at most `limit` of them. */
export async function recentFailures(
  db: DB,
  kind: FailureKind,
  key: string,
  since: Date,
  limit: number,
): Promise<Date[]> {
  const rows = await sql<{ failed_at: Date | string }>`
    select failed_at from sign_in_failures
    where kind = ${kind} and key = ${key} and failed_at > ${since}
    order by failed_at desc limit ${limit}`.execute(db);
  return rows.rows.map((r) => new Date(r.failed_at));
}

/** Records one failure against each key, and forgets failures older than `forgetBefore` (they decide nothing). */
export async function insertFailures(
  db: DB,
  keys: { kind: FailureKind; key: string }[],
  at: Date,
  forgetBefore: Date,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const { kind, key } of keys)
      await sql`insert into sign_in_failures (kind, key, failed_at) values (${kind}, ${key}, ${at})`.execute(trx);
    await sql`delete from sign_in_failures where failed_at <= ${forgetBefore}`.execute(trx);
  });
}

/** Rows held per kind (for the bound's test). */
export async function countFailureRows(db: DB): Promise<{ address: number; prefix: number }> {
  const rows = await sql<{
    kind: FailureKind;
    n: string | number;
  }>`select kind, count(*) as n from sign_in_failures group by kind`.execute(db);
  const count = (kind: FailureKind) => Number(rows.rows.find((r) => r.kind === kind)?.n ?? 0);
  return { address: count('address'), prefix: count('prefix') };
}
