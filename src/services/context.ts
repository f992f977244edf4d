// What a service may use besides its arguments: one object, built once per process (the API's in
// src/api/context.ts `apiServiceContext`, the worker's in src/worker/service-context.ts) and handed as the first
// argument to every service, so a route, an activity, a chat tool and an MCP tool call a service the same way.
//
// Only the database is always there. A service that needs more says so in its type, `ServiceContext<'temporal'>`,
// and the type checker refuses a caller that cannot give it: a worker-side caller has no `publicUrl`, a test
// that builds `{ db }` has no Temporal.
import type { DB } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { TemporalTarget } from '../temporal/lifecycle.js';
import type { GitClients } from './git-client-cache.js';

/** The optional parts, each by the name a service asks for. */
export interface ServiceParts {
  blobs: BlobStore;
  /** Starts, signals and cancels workflows: the API's lazy client provider, or an activity's own client. */
  temporal: TemporalTarget;
  logger: Logger;
  /** The dashboard's base address (PROCTOR_APP_URL): links in answers and notifications. */
  appUrl: string;
  /** The API's public address: webhooks are delivered to `<publicUrl>/webhooks/<provider>`. */
  publicUrl: string;
  /** Tests of a run in parallel at most (PROCTOR_RUN_CONCURRENCY). */
  runConcurrency: number;
  /** Lifetime of a presigned download URL (PROCTOR_URL_TTL_SECONDS). */
  urlTtlSeconds: number;
  /** Mobile build uploads: the largest accepted and the upload URL's lifetime (QA.tech: 4 GB, "expires quickly"). */
  builds: { maxBytes: number; urlTtlSeconds: number };
  /** Reuses git clients (and GitHub installation tokens) across calls; absent: every call builds a new client. */
  gitClients: GitClients;
}

/** The database, any of the parts, and for certain the `Needs` a service names. */
export type ServiceContext<Needs extends keyof ServiceParts = never> = { db: DB } & Partial<ServiceParts> & {
    [K in Needs]-?: ServiceParts[K];
  };
