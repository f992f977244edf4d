// The dashboard and API app as the benches serve it: one config, so the backend and run-page benches measure the
// same app a deployment runs (a run concurrency of 100, the default URL lifetime).
import { createApp } from '../src/api/app.js';
import type { DB } from '../src/db/database.js';
import { silentLogger } from '../src/logger.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import type { TemporalClientProvider } from '../src/temporal/client.js';

export const benchApp = (deps: { db: DB; appUrl: string; temporal: TemporalClientProvider; blobs: BlobStore }) =>
  createApp({
    db: deps.db,
    config: { appUrl: deps.appUrl, publicUrl: deps.appUrl, PROCTOR_URL_TTL_SECONDS: 900, PROCTOR_RUN_CONCURRENCY: 100 },
    temporal: deps.temporal,
    blobs: deps.blobs,
    logger: silentLogger,
  });
