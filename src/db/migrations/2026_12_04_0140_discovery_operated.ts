import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one instead.
// Every page visit of a discovery reads the controls earlier visits operated (`discovery_pages.operated`). Without
// this index that read went through every page row of the discovery, so a discovery of n pages read ~n²/2 rows;
// most visits operate nothing new (the header's menu was opened on the first page), and this partial index holds
// only the rows that did: at most one per action spent, whatever the number of pages.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index discovery_pages_operated on discovery_pages (discovery_id) where operated <> '[]'::jsonb`.execute(
    db,
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index discovery_pages_operated`.execute(db);
}
