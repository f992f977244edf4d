import type { BrowserPool } from '../src/browser/context/pool.js';
import type { DB } from '../src/db/database.js';
import type { Llm } from '../src/llm/client.js';
import type { Logger } from '../src/logger.js';
import type { BlobStore } from '../src/storage/blob-store.js';
import type { DeviceFarm } from '../src/devices/device-farm.js';
import type { NotifyDeps } from '../src/notify/run-notifications.js';
import type { GitClients } from '../src/services/git-integrations.js';
import type { UsageRecorder } from '../src/services/llm-usage.js';

/** What activities may use; built once by the worker (the composition root) and passed in. */
export interface ActivityDeps {
  db: DB;
  blobs: BlobStore;
  logger: Logger;
  browsers: BrowserPool;
  /** Absent when no LLM is configured: AI features then fail with a clear reason. */
  llm?: Llm;
  /** Where LLM calls are counted and the project's budget is asked (activities/llm-usage.ts `llmFor`); absent: not counted. */
  usage?: UsageRecorder;
  /** Most agent actions per burn-in. */
  maxAgentSteps?: number;
  /** Auto-wait bound per step, in ms. */
  stepTimeoutMs?: number;
  /** The domain of Proctor's inbox (PROCTOR_INBOX_DOMAIN): `{{INBOX}}` addresses and the email steps need it. */
  inboxDomain?: string;
  /** Runs mobile builds; absent: a mobile test ends ERROR with the reason. */
  deviceFarm?: DeviceFarm;
  /** Run notifications: dashboard links, SMTP sender, network guard for webhooks. */
  notify: Omit<NotifyDeps, 'db' | 'logger'>;
  /** GitHub/GitLab clients per integration, kept for the process so App installation tokens are reused: `gitClientFor(deps, …)`. */
  gitClients: GitClients;
}
