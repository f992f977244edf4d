import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from './config.js';
import { createDatabase, type DB } from './db/database.js';
import type { BlobStore } from './storage/blob-store.js';
import { createFsBlobStore } from './storage/fs.js';
import { createS3BlobStore } from './storage/s3.js';

// Pieces the CLI's sub-commands share when they compose a process from its config.

export function dataDir(config: Config): string {
  const dir = resolve(config.PROCTOR_DATA_DIR);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function openDatabase(config: Config): DB {
  if (config.DATABASE_URL)
    return createDatabase({ kind: 'postgres', url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE });
  return createDatabase({ kind: 'pglite', dataDir: resolve(dataDir(config), 'pglite') });
}

/** A secret kept in the data dir across restarts (dev only: production passes it in the environment). */
export function persistentSecret(config: Config, name: string): string {
  const file = resolve(dataDir(config), name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function openBlobStore(config: Config): BlobStore {
  // The data dir (and a generated secret) only for the filesystem store: an S3 deployment may run read-only.
  if (config.s3) return createS3BlobStore(config.s3);
  return createFsBlobStore({
    dir: config.PROCTOR_BLOB_DIR ?? resolve(dataDir(config), 'blobs'),
    secret: config.PROCTOR_BLOB_SECRET ?? persistentSecret(config, 'blob-secret'),
    publicUrl: config.publicUrl,
  });
}
