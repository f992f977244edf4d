import { createRoute, z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { checkHealth } from '../../services/health.js';

const Check = z.object({ ok: z.boolean(), latencyMs: z.number(), error: z.string().optional() });
const Health = z
  .object({
    status: z.enum(['ok', 'degraded']).openapi({ description: 'ok when the database and Temporal answer' }),
    database: Check,
    temporal: Check,
    workers: z.object({ pollers: z.number().int().nullable(), taskQueue: z.string() }).openapi({
      description:
        'Workers polling the task queue: informational (the API and the workers are deployed apart), 0 means runs wait for a worker',
    }),
    llm: z
      .union([
        z.object({ configured: z.literal(false) }),
        z.object({
          configured: z.literal(true),
          model: z.string(),
          toolMode: z.enum(['native', 'native-plain', 'text']),
          probing: z.boolean(),
          fixedMode: z.boolean().openapi({ description: 'PROCTOR_LLM_TOOL_MODE set the mode: no probe' }),
          capabilities: z
            .object({
              model: z.string(),
              tools: z.boolean(),
              streamingTools: z.boolean(),
              parallelToolCallsParam: z.boolean().nullable(),
              jsonSchema: z.boolean(),
              images: z.boolean(),
              contextTokens: z.number().int().nullable(),
              toolMode: z.enum(['native', 'native-plain', 'text']),
              probedAt: z.string(),
              notes: z.record(z.string(), z.string()),
            })
            .nullable(),
        }),
      ])
      .optional()
      .openapi({
        description:
          'The LLM endpoint as the startup probe found it: how tool calls are asked for, and what it supports (informational)',
      }),
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

export function registerHealth(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const { ok, ...checks } = await checkHealth(c.get('deps'));
    return c.json({ status: ok ? ('ok' as const) : ('degraded' as const), ...checks }, ok ? 200 : 503);
  });
}
