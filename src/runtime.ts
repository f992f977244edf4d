import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from './config.js';
import { createDatabase, type DB } from './db/database.js';
import type { BlobStore } from './storage/blob-store.js';
import { createBlobStore } from './storage/index.js';
import type { ActivityDeps } from '../activities/deps.js';
import { createNetworkGuard } from './browser/network-guard.js';
import { createBrowserPool } from './browser/pool.js';
import { createLlm } from './llm/client.js';
import { createEmailSender } from './notify/email.js';
import type { Logger } from './logger.js';

// Pieces the CLI's sub-commands share when they compose a process from its config.

export function dataDir(config: Config): string {
  const dir = resolve(config.PROCTOR_DATA_DIR);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function openDatabase(config: Config): DB {
  if (config.DATABASE_URL) return createDatabase({ kind: 'postgres', url: config.DATABASE_URL, maxConnections: config.DATABASE_POOL_SIZE });
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
  return createBlobStore({
    s3: config.s3,
    blobDir: config.PROCTOR_BLOB_DIR ?? resolve(dataDir(config), 'blobs'),
    blobSecret: config.PROCTOR_BLOB_SECRET ?? persistentSecret(config, 'blob-secret'),
    publicUrl: config.publicUrl,
  });
}

/** The worker's dependencies: one browser pool per process, the LLM when configured. */
export function createWorkerDeps(config: Config, base: { db: DB; blobs: BlobStore; logger: Logger }): ActivityDeps {
  const networkGuard = createNetworkGuard({ allowPrivateNetworks: config.allowPrivateNetworks });
  return {
    ...base,
    browsers: createBrowserPool({ executablePath: config.PROCTOR_CHROMIUM_PATH, concurrency: config.PROCTOR_BROWSER_CONCURRENCY, queueTimeoutMs: 10 * 60_000, networkGuard }),
    llm: createLlm(config.llm),
    maxAgentSteps: config.PROCTOR_AGENT_MAX_STEPS,
    notify: {
      appUrl: config.appUrl,
      email: config.PROCTOR_SMTP_URL ? createEmailSender({ smtpUrl: config.PROCTOR_SMTP_URL, from: config.PROCTOR_EMAIL_FROM }) : undefined,
      networkGuard,
    },
    stepTimeoutMs: config.PROCTOR_STEP_TIMEOUT_MS,
  };
}
