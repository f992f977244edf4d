import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshDatabase, writeFromElsewhere } from '../support/app-context.js';

// PostgreSQL restarting or failing over ends every session, including one a transaction holds while no statement
// runs. The server's notice then reaches the client as an 'error' event, which node-postgres's pool listens for only
// on idle clients: without a listener of the client's own, it crashed the whole process (a worker in the fault
// matrix, after a PostgreSQL restart). Here the server ends the session in the middle of a transaction.
describe('a database connection ended by the server while in use', () => {
  it('fails the transaction holding it, and the process and the database go on', async () => {
    const db = await freshDatabase('postgres');
    try {
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
          await writeFromElsewhere(db, 'select pg_terminate_backend($1)', [pid]);
          // The notice arrives while the transaction runs no statement.
          await new Promise((resolve) => setTimeout(resolve, 500));
          await sql`select 1`.execute(trx);
          return 'committed';
        })
        .catch((err: Error) => err.message);
      expect(outcome).not.toBe('committed');
      // The next queries get a working connection.
      for (let i = 0; i < 3; i++) {
        const { rows } = await sql<{ n: number }>`select ${i}::int as n`.execute(db);
        expect(rows[0]!.n).toBe(i);
      }
    } finally {
      await db.destroy();
    }
  });
});
