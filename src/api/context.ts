import type { Config } from '../config.js';
import type { DB } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { TemporalClientProvider } from '../temporal/client.js';
import type { LlmStatus } from '../domain/llm-status.js';
import type { TokenUseRecorder } from '../services/token-use.js';

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

/** The authenticated caller: the project comes from the token, never from the request. */
export interface Caller {
  projectId: string;
  organizationId: string;
  tokenId: string;
}

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    caller: Caller;
    requestId: string;
    logger: Logger;
  };
};
