// How `proctor worker` picks up remote tunnels from its environment, and that only the browsers route tunnel
// hostnames: a run-notification webhook naming one must not reach the system resolver (`*.localhost` is loopback).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps } from '../../activities/index.js';
import { loadConfig } from '../../src/config.js';
import type { DB } from '../../src/db/database.js';
import { silentLogger } from '../../src/logger.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createActivityDeps, workerSettings } from '../../src/worker/worker.js';
import { freshDatabase } from '../support/app-context.js';

const production = {
  DATABASE_URL: 'postgres://u@db/p',
  TEMPORAL_ADDRESS: 'temporal:7233',
  PROCTOR_BLOB_SECRET: 'x'.repeat(32),
  PROCTOR_MASTER_KEY: 'k'.repeat(43) + '=',
};
const secret = randomBytes(24).toString('hex');

describe('worker settings for remote tunnels', () => {
  let db: DB;
  let blobDir: string;
  let deps: ActivityDeps;

  beforeAll(async () => {
    db = await freshDatabase('pglite');
    blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
    const blobs = createFsBlobStore({ dir: blobDir, secret: 'y'.repeat(32), publicUrl: 'http://127.0.0.1:3000' });
    const config = loadConfig('worker', {
      ...production,
      PROCTOR_INTERNAL_SECRET: secret,
      PROCTOR_TUNNEL_DOMAIN: 'tunnel.localhost:3000',
    });
    deps = createActivityDeps(workerSettings(config), { db, blobs, logger: silentLogger });
  });

  afterAll(async () => {
    await deps?.browsers.close();
    await db?.destroy();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('routes tunnel hostnames only with the internal secret', () => {
    const withSecret = workerSettings(
      loadConfig('worker', {
        ...production,
        PROCTOR_INTERNAL_SECRET: secret,
        PROCTOR_TUNNEL_DOMAIN: 'Tunnel.Example.com',
      }),
    );
    expect(withSecret.tunnels).toEqual({ domain: 'tunnel.example.com', internalSecret: secret });
    expect(workerSettings(loadConfig('worker', production)).tunnels).toBeUndefined();
  });

  it('refuses a chat webhook on a tunnel hostname, as any private address', async () => {
    const verdict = await deps.notify.networkGuard!.check('http://hooks-k3x9q2m7p1za.tunnel.localhost:3000/slack');
    expect(verdict.allowed).toBe(false);
  });
});
