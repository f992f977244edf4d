import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { sql } from 'kysely';
import type { DB } from '../../src/db/database.js';
import type { BlobStore } from '../../src/storage/blob-store.js';

// What an attacker with a database dump, a bucket copy or the log files would read, searched for secrets in every
// spelling a leak takes: as is, base64 (at each of the three byte alignments, as inside a basic-auth header or a
// larger encoded blob) and hex (a bytea column's text form).

/** The spellings of `secret` to look for. */
export function spellings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out = new Set([secret, bytes.toString('hex')]);
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Only the characters made of the secret's bits alone, wherever it sits in a longer value.
    const piece = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    if (piece.length >= 8) out.add(piece);
  }
  return [...out];
}

/** Which of `secrets` (by name) appear in `text` in any spelling. */
export function leaksIn(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, secret]) => spellings(secret).some((s) => text.includes(s)))
    .map(([name]) => name);
}

/** Every row of every table of the database, as text: what `pg_dump` would hold. */
export async function dumpDatabase(db: DB): Promise<{ tables: string[]; text: string }> {
  const tables = await sql<{
    name: string;
  }>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(
    db,
  );
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t`.execute(db);
    parts.push(...rows.rows.map((r) => `${name}: ${r.row}`));
  }
  return { tables: tables.rows.map((t) => t.name), text: parts.join('\n') };
}

/** The texts inside `bytes`: zip entries and gzip members unpacked (recursively), everything else as is. */
export function textsOf(name: string, bytes: Uint8Array): { name: string; text: string }[] {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) {
    return Object.entries(unzipSync(bytes)).flatMap(([entry, inner]) => textsOf(`${name}!${entry}`, inner));
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return textsOf(`${name}!gunzip`, gunzipSync(bytes));
  return [{ name, text: Buffer.from(bytes).toString('utf8') }];
}

/** A blob store that remembers every key written through it (the S3 API lists only under a folder). */
export function recordingKeys(store: BlobStore): { store: BlobStore; keys: Set<string> } {
  const keys = new Set<string>();
  const recording: BlobStore = Object.create(store) as BlobStore;
  recording.put = async (key, body, contentType) => {
    keys.add(key);
    await store.put(key, body, contentType);
  };
  return { store: recording, keys };
}

/** Every object in the store under the top folders of `seen`, read back and unpacked. */
export async function readAllBlobs(
  store: BlobStore,
  seen: Iterable<string>,
): Promise<{ keys: string[]; texts: { name: string; text: string }[] }> {
  const folders = new Set([...seen].map((k) => `${k.split('/')[0]}/`));
  const keys: string[] = [];
  for (const folder of folders) for await (const blob of store.list(folder)) keys.push(blob.key);
  const texts: { name: string; text: string }[] = [];
  for (const key of keys.sort()) texts.push(...textsOf(key, await store.get(key)));
  return { keys, texts };
}
