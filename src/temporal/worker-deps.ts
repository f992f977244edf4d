import type { ActivityDeps } from '../../activities/deps.js';
import { createNetworkGuard } from '../browser/network-guard.js';
import { createBrowserPool } from '../browser/pool.js';
import type { Config } from '../config.js';
import type { DB } from '../db/database.js';
import { createLlm } from '../llm/client.js';
import type { Logger } from '../logger.js';
import { createEmailSender } from '../notify/email.js';
import type { BlobStore } from '../storage/blob-store.js';
import { createTunnelRouter } from '../tunnels/agent-router.js';

/** The worker's dependencies: one browser pool per process, the LLM when configured. */
export function createWorkerDeps(config: Config, base: { db: DB; blobs: BlobStore; logger: Logger }): ActivityDeps {
  const { domain, internalSecret } = config.tunnels;
  // Without the internal secret the edges would refuse the agents, so tunnel hostnames stay unknown names.
  const tunnels = internalSecret ? createTunnelRouter({ db: base.db, domain, internalSecret }) : undefined;
  const networkGuard = createNetworkGuard({ allowPrivateNetworks: config.allowPrivateNetworks, isTunnelHost: tunnels?.isTunnelHost });
  return {
    ...base,
    browsers: createBrowserPool({ executablePath: config.PROCTOR_CHROMIUM_PATH, concurrency: config.PROCTOR_BROWSER_CONCURRENCY, queueTimeoutMs: 10 * 60_000, networkGuard, tunnels }),
    llm: createLlm(config.llm),
    maxAgentSteps: config.PROCTOR_AGENT_MAX_STEPS,
    notify: {
      appUrl: config.appUrl,
      email: config.PROCTOR_SMTP_URL ? createEmailSender({ smtpUrl: config.PROCTOR_SMTP_URL, from: config.PROCTOR_EMAIL_FROM }) : undefined,
      networkGuard,
    },
    stepTimeoutMs: config.PROCTOR_STEP_TIMEOUT_MS,
  };
}
