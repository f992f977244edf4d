import { createRoute, z } from '@hono/zod-openapi';
import { pingDatabase } from '../../db/database.js';
import type { OpenApiApp } from '../openapi.js';

const Check = z.object({ ok: z.boolean(), latencyMs: z.number(), error: z.string().optional() });
const Health = z
  .object({
    status: z.enum(['ok', 'degraded']).openapi({ description: 'ok when the database and Temporal answer' }),
    database: Check,
    temporal: Check,
    workers: z
      .object({ pollers: z.number().int().nullable(), taskQueue: z.string() })
      .openapi({ description: 'Workers polling the task queue: informational (the API and the workers are deployed apart), 0 means runs wait for a worker' }),
  })
  .openapi('Health');

const route = createRoute({
  method: 'get',
  path: '/healthz',
  tags: ['System'],
  summary: 'Liveness and reachability of the database and Temporal',
  responses: {
    200: { description: 'Everything reachable', content: { 'application/json': { schema: Health } } },
    503: { description: 'A dependency is unreachable', content: { 'application/json': { schema: Health } } },
  },
});

async function check(fn: () => Promise<unknown>): Promise<z.infer<typeof Check>> {
  const started = performance.now();
  try {
    await fn();
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: err instanceof Error ? err.message : String(err) };
  }
}

export function registerHealth(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const { db, temporal } = c.get('deps');
    const [database, temporalCheck] = await Promise.all([check(() => pingDatabase(db)), check(() => temporal.ping())]);
    const ok = database.ok && temporalCheck.ok;
    const pollers = temporalCheck.ok ? await temporal.workerPollers().catch(() => null) : null;
    return c.json(
      { status: ok ? ('ok' as const) : ('degraded' as const), database, temporal: temporalCheck, workers: { pollers, taskQueue: temporal.taskQueue } },
      ok ? 200 : 503,
    );
  });
}
