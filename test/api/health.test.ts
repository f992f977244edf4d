import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../../src/storage/s3.js';
import { minioBucket, startInstalledMinio } from '../support/minio.js';
import { createApiContext } from '../support/app-context.js';
import { freePort } from '../support/net.js';

describe('GET /healthz', () => {
  it('is green when the database and Temporal answer, and says no worker polls this queue', async () => {
    const ctx = await createApiContext('pglite');
    try {
      const res = await ctx.call('GET', '/healthz', undefined, null);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'ok',
        database: { ok: true },
        temporal: { ok: true },
        workers: { pollers: 0 },
      });
    } finally {
      await ctx.close();
    }
  });

  it('answers 503 degraded, naming Temporal, when Temporal is unreachable', async () => {
    const ctx = await createApiContext('pglite', { temporalAddress: `127.0.0.1:${await freePort()}` });
    try {
      const res = await ctx.call('GET', '/healthz', undefined, null);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: 'degraded',
        database: { ok: true },
        temporal: { ok: false },
        workers: { pollers: null },
      });
      expect(res.body.temporal.error).toMatch(/timed out|connect|deadline/i);
    } finally {
      await ctx.close();
    }
  }, 30_000);
});

// The platform's probes: liveness asks nothing, readiness names the dependency that is missing while it is.
describe('GET /livez and /readyz', () => {
  it('is ready with a real MinIO, and names the blob store once MinIO is gone, while /livez still answers', async () => {
    const minio = await startInstalledMinio();
    const blobs = createS3BlobStore(minioBucket(minio, 'proctor-ready'));
    await blobs.ensureReady();
    const ctx = await createApiContext('pglite', { blobs });
    try {
      const ready = await ctx.call('GET', '/readyz', undefined, null);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        status: 'ready',
        checks: { database: { ok: true }, temporal: { ok: true }, blobStore: { ok: true } },
      });
      await minio.stop();
      const gone = await ctx.call('GET', '/readyz', undefined, null);
      expect(gone.status).toBe(503);
      expect(gone.body).toMatchObject({
        status: 'unready',
        checks: { database: { ok: true }, temporal: { ok: true }, blobStore: { ok: false } },
      });
      // Refused, or (a shuffled fresh run) the kept-alive connection of the probe before, reset as MinIO stopped.
      expect(gone.body.checks.blobStore.error).toMatch(/ECONNREFUSED|ECONNRESET|socket hang up|connect/i);
      expect((await ctx.call('GET', '/livez', undefined, null)).status).toBe(200);
    } finally {
      await ctx.close();
      await minio.stop();
    }
  }, 60_000);

  it('answers within its limit when the blob store accepts connections and never replies', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as AddressInfo;
    const blobs = createS3BlobStore({
      endpoint: `http://127.0.0.1:${port}`,
      accessKey: 'k',
      secretKey: 'secret-key',
      bucket: 'proctor-ready',
      region: 'us-east-1',
    });
    const ctx = await createApiContext('pglite', { blobs });
    try {
      const res = await ctx.call('GET', '/readyz', undefined, null);
      expect(res.status).toBe(503);
      expect(res.body.checks.blobStore).toMatchObject({ ok: false, error: 'no answer within 2000 ms' });
      expect(res.body.checks.database.ok).toBe(true);
    } finally {
      await ctx.close();
      silent.closeAllConnections();
      silent.close();
    }
  }, 30_000);

  it('names Temporal when it is unreachable; /livez answers and neither is in the OpenAPI document', async () => {
    const ctx = await createApiContext('pglite', { temporalAddress: `127.0.0.1:${await freePort()}` });
    try {
      const res = await ctx.call('GET', '/readyz', undefined, null);
      expect(res.status).toBe(503);
      expect(res.body.checks).toMatchObject({
        database: { ok: true },
        temporal: { ok: false },
        blobStore: { ok: true },
      });
      expect(await ctx.call('GET', '/livez', undefined, null)).toMatchObject({ status: 200, body: { status: 'ok' } });
      // What the API pods need to serve: the database alone decides, the rest is still reported.
      const api = await ctx.call('GET', '/readyz?need=database', undefined, null);
      expect(api).toMatchObject({ status: 200, body: { status: 'ready', checks: { temporal: { ok: false } } } });
      expect((await ctx.call('GET', '/readyz?need=database,temporal', undefined, null)).status).toBe(503);
      const typo = await ctx.call('GET', '/readyz?need=postgres', undefined, null);
      expect(typo.status).toBe(400);
      expect(typo.body.message).toMatch(/no dependency named postgres \(database, temporal, blobStore\)/);
      const doc = await ctx.call('GET', '/v1/openapi.json', undefined, null);
      expect(Object.keys(doc.body.paths)).not.toContain('/readyz');
      expect(Object.keys(doc.body.paths)).not.toContain('/livez');
    } finally {
      await ctx.close();
    }
  }, 30_000);
});
