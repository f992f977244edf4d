// Whether this process can do its work now, as `GET /readyz` reports it to a load balancer or Kubernetes: each
// dependency asked once, with a short limit, so the answer comes while one of them hangs (a blob store behind a
// dropped route answers nothing at all). Liveness (`/livez`) asks nothing: a dependency that is down must take a
// process out of rotation, never get it restarted.
import { pingDatabase, type DB } from '../db/database.js';
import type { BlobStore } from '../storage/blob-store.js';
import { withTimeout } from '../timeouts.js';

export interface ReadinessCheck {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

export type Readiness = { ready: boolean; checks: Record<string, ReadinessCheck> };

/** What each dependency is asked: anything that resolves when it answers. */
export type Probes = Record<string, () => Promise<unknown>>;

const limitMs = 2_000;

/** The database, Temporal and the blob store, the three every Proctor process needs. */
export function processProbes(deps: {
  db: DB;
  temporal: { ping(timeoutMs?: number): Promise<void> };
  blobs: BlobStore;
}): Probes {
  return {
    database: () => pingDatabase(deps.db),
    temporal: () => deps.temporal.ping(limitMs),
    // A key nobody writes: a reachable store answers "not there" (null), an unreachable one throws or hangs.
    blobStore: () => deps.blobs.stat('readiness/probe'),
  };
}

export async function checkReadiness(probes: Probes): Promise<Readiness> {
  const entries = await Promise.all(
    Object.entries(probes).map(async ([name, probe]): Promise<[string, ReadinessCheck]> => {
      const started = performance.now();
      const latencyMs = () => Math.round(performance.now() - started);
      try {
        await withTimeout(probe(), limitMs, () => new Error(`no answer within ${limitMs} ms`));
        return [name, { ok: true, latencyMs: latencyMs() }];
      } catch (err) {
        return [name, { ok: false, latencyMs: latencyMs(), error: err instanceof Error ? err.message : String(err) }];
      }
    }),
  );
  return { ready: entries.every(([, check]) => check.ok), checks: Object.fromEntries(entries) };
}
