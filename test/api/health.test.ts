import { describe, expect, it } from 'vitest';
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
