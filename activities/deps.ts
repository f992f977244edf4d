import type { BrowserPool } from '../src/browser/context/pool.js';
import type { Llm } from '../src/llm/client.js';
import type { DeviceFarm } from '../src/devices/device-farm.js';
import type { NotifyDeps } from '../src/notify/run-notifications.js';
import type { ServiceContext } from '../src/services/context.js';
import type { UsageRecorder } from '../src/services/llm-usage.js';

/**
 * The service context of the worker process: what activities hand the services they call, as the API's routes hand
 * theirs (`workerServiceContext` in src/worker/worker.ts builds it). No Temporal part: an activity that starts a
 * workflow uses its own client.
 */
export type WorkerServices = ServiceContext<'blobs' | 'logger' | 'appUrl' | 'gitClients'>;

/**
 * What activities may use: the worker's service context and the worker's own parts; built once by the worker (the
 * composition root) and passed in. An activity passes `deps` to a service as it is.
 */
export interface ActivityDeps extends WorkerServices {
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
}
