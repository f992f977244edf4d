// Reachability of what the API depends on, as `GET /healthz` reports it.
import { pingDatabase, type DB } from '../db/database.js';
import type { TemporalClientProvider } from '../temporal/client.js';
import type { LlmStatus } from '../domain/llm-status.js';

export interface HealthCheck {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

async function check(fn: () => Promise<unknown>): Promise<HealthCheck> {
  const started = performance.now();
  try {
    await fn();
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      ok: false,
      latencyMs: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

/**
 * The database and Temporal, checked together; the worker pollers only when Temporal answered (null when unknown);
 * the LLM as the startup probe found it (informational: replays need no model).
 */
export async function checkHealth(deps: { db: DB; temporal: TemporalClientProvider; llm?: () => LlmStatus }): Promise<{
  ok: boolean;
  database: HealthCheck;
  temporal: HealthCheck;
  workers: { pollers: number | null; taskQueue: string };
  llm?: LlmStatus;
}> {
  const { db, temporal } = deps;
  const [database, temporalCheck] = await Promise.all([check(() => pingDatabase(db)), check(() => temporal.ping())]);
  const pollers = temporalCheck.ok ? await temporal.workerPollers().catch(() => null) : null;
  return {
    ok: database.ok && temporalCheck.ok,
    database,
    temporal: temporalCheck,
    workers: { pollers, taskQueue: temporal.taskQueue },
    ...(deps.llm && { llm: deps.llm() }),
  };
}
