import { DEFAULT_BUILD_MAX_BYTES, DEFAULT_BUILD_UPLOAD_TTL_SECONDS, type Config } from '../config.js';
import type { DB } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { TemporalClientProvider } from '../temporal/client.js';
import type { LlmStatus } from '../domain/llm-status.js';
import type { TokenUseRecorder } from '../services/token-use.js';
import type { ServiceContext } from '../services/context.js';

/** Everything a handler may use, built once at start-up by the composition root (cli / tests). */
export interface AppDeps {
  db: DB;
  /** PROCTOR_MAX_BODY_BYTES, PROCTOR_MAX_DIFF_BYTES, PROCTOR_INBOX_DOMAIN, PROCTOR_TRUSTED_PROXIES and the build settings may be left out (tests, benches): the config defaults apply. */
  config: Pick<Config, 'appUrl' | 'publicUrl' | 'PROCTOR_URL_TTL_SECONDS' | 'PROCTOR_RUN_CONCURRENCY'> &
    Partial<
      Pick<
        Config,
        | 'PROCTOR_MAX_BODY_BYTES'
        | 'PROCTOR_MAX_DIFF_BYTES'
        | 'PROCTOR_BUILD_MAX_BYTES'
        | 'PROCTOR_BUILD_UPLOAD_TTL_SECONDS'
        | 'PROCTOR_INBOX_DOMAIN'
        | 'PROCTOR_TRUSTED_PROXIES'
      >
    >;
  temporal: TemporalClientProvider;
  blobs: BlobStore;
  logger: Logger;
  /** What is known of the LLM endpoint (the startup probe), for /healthz; absent: not reported. */
  llm?: () => LlmStatus;
  /** Remote tunnels: the domain their hostnames live under, and this process's tunnel edge if it runs one. */
  tunnels?: { domain: string; edge?: { disconnect(runnerId: string): void } };
  /** Writes tokens' `last_used_at`; absent: one per database with the real clock (tests inject their own clock). */
  tokenUse?: TokenUseRecorder;
}

/**
 * The service context of the API process: every part a service may ask for except the worker's git clients, with
 * Temporal as the API's lazy provider (health asks it for pollers).
 */
export type ApiServices = ServiceContext<
  'blobs' | 'logger' | 'appUrl' | 'publicUrl' | 'runConcurrency' | 'urlTtlSeconds' | 'builds'
> & { temporal: TemporalClientProvider };

/**
 * The one place the API turns its deps into the services' context; `createApp` calls it once and every route,
 * MCP tool and dashboard page reads the result as `c.get('services')`.
 */
export function apiServiceContext(deps: AppDeps): ApiServices {
  const { config } = deps;
  // The settings are read from `deps.config` at each use, as the routes read them before, so a setting changed in
  // place (a test shortens the build upload URL's lifetime) applies to the next request.
  return {
    db: deps.db,
    blobs: deps.blobs,
    temporal: deps.temporal,
    logger: deps.logger,
    get appUrl() {
      return config.appUrl;
    },
    get publicUrl() {
      return config.publicUrl;
    },
    get runConcurrency() {
      return config.PROCTOR_RUN_CONCURRENCY;
    },
    get urlTtlSeconds() {
      return config.PROCTOR_URL_TTL_SECONDS;
    },
    get builds() {
      return {
        maxBytes: config.PROCTOR_BUILD_MAX_BYTES ?? DEFAULT_BUILD_MAX_BYTES,
        urlTtlSeconds: config.PROCTOR_BUILD_UPLOAD_TTL_SECONDS ?? DEFAULT_BUILD_UPLOAD_TTL_SECONDS,
      };
    },
  };
}

/** The authenticated caller: the project comes from the token, never from the request. */
export interface Caller {
  projectId: string;
  organizationId: string;
  tokenId: string;
}

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    /** What services are handed: `apiServiceContext(deps)`, built once per app. */
    services: ApiServices;
    caller: Caller;
    requestId: string;
    logger: Logger;
  };
};
