import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { inject } from 'vitest';
import { createActivities, type Activities, type ActivityDeps } from '../../activities/index.js';
import { createApp } from '../../src/api/app.js';
import type { AppDeps } from '../../src/api/context.js';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { createLogger, silentLogger, type Logger } from '../../src/logger.js';
import type { BlobStore } from '../../src/storage/blob-store.js';

// TEST_LOG=1 shows what the API and activities log (errors with request ids) while debugging a test.
const defaultLogger = process.env.TEST_LOG ? createLogger('debug') : silentLogger;
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createTemporalClientProvider, type TemporalClientProvider } from '../../src/temporal/client.js';
import {
  createActivityDeps,
  startWorker,
  type TemporalWorkerOptions,
  type WorkerSettings,
} from '../../src/worker/worker.js';
import { databaseUrlOf, freshDatabase, type Tenant } from './app-context.js';
import { waitFor } from './net.js';
import type { ScriptedLlm } from './scripted-llm.js';
import { startInboxHost, type InboxHost } from '../../src/cli/inbox.js';

/** The workflow bundle, built once for the whole suite by the global setup (bundling takes seconds). */
export const workflowBundle = async (): Promise<WorkflowBundleOption> => ({ codePath: inject('workflowBundlePath') });

export interface StackOptions {
  /** The scripted LLM the worker talks to; none = no LLM configured. */
  llm?: ScriptedLlm;
  maxAgentSteps?: number;
  stepTimeoutMs?: number;
  concurrency?: number;
  /** SMTP URL of a mail sink for run notifications. */
  smtpUrl?: string;
  /** false: no in-process worker (a test runs `proctor worker` as its own process instead). */
  worker?: boolean;
  /** Another Temporal server than the suite's shared one (e.g. one started with small limits). */
  temporalAddress?: string;
  /** Whether the browsers may reach private ranges (loopback included); default true. */
  allowPrivateNetworks?: boolean;
  /** Remote tunnels the worker's browsers route to a tunnel edge (`PROCTOR_TUNNEL_DOMAIN`, `PROCTOR_INTERNAL_SECRET`). */
  tunnels?: WorkerSettings['tunnels'];
  /** PROCTOR_APP_URL: where the `url` fields of answers point (the dashboard tests serve the app there). */
  appUrl?: string;
  /** Runs Proctor's inbox (its SMTP server on a free port, as `proctor api` does) and gives the worker its domain. */
  inbox?: boolean;
  /** Wraps the worker's real activities (e.g. to lose an activity's completion and make Temporal retry it). */
  substitute?: TemporalWorkerOptions['substitute'];
  /** What the API and the worker log to (e.g. one that keeps every line for a test to read); default silent (TEST_LOG=1: stderr). */
  logger?: Logger;
  /** The blob store of the API and the worker (e.g. S3 on a test MinIO); default a temporary directory. */
  blobs?: BlobStore;
}

export interface Stack {
  db: DB;
  app: ReturnType<typeof createApp>;
  tenant: Tenant;
  temporal: TemporalClientProvider;
  activities: Activities;
  activityDeps: ActivityDeps;
  browsers: BrowserPool;
  taskQueue: string;
  databaseUrl?: string;
  /** With `inbox`: the SMTP server's port and domain (`smtp://127.0.0.1:<port>` reaches it). */
  inbox?: InboxHost;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Stops the worker (draining it), then closes the browsers, the Temporal client and the database. */
  close(): Promise<void>;
}

/** The real service in one process: API, Temporal worker (own task queue), Postgres, Chromium, fs blobs. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const db = await freshDatabase('postgres');
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
  const publicUrl = 'http://127.0.0.1:3000';
  const blobs = opts.blobs ?? createFsBlobStore({ dir: blobDir, secret: randomBytes(32).toString('hex'), publicUrl });
  const logger = opts.logger ?? defaultLogger;
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const appUrl = opts.appUrl ?? 'https://app.proctor.test';
  const address = opts.temporalAddress ?? inject('temporalAddress');
  const temporal = createTemporalClientProvider({ address, namespace: 'default', taskQueue });
  // The worker as `proctor worker` assembles it, with the test's settings (no worker: the same deps, unpolled).
  const settings: WorkerSettings = {
    browser: { concurrency: opts.concurrency ?? 4, allowPrivateNetworks: opts.allowPrivateNetworks ?? true },
    llm: opts.llm && { apiKey: opts.llm.apiKey, baseURL: opts.llm.baseURL, model: 'scripted', maxRetries: 1 },
    maxAgentSteps: opts.maxAgentSteps,
    stepTimeoutMs: opts.stepTimeoutMs ?? 3_000,
    notify: { appUrl, email: opts.smtpUrl ? { smtpUrl: opts.smtpUrl, from: 'Proctor <proctor@test>' } : undefined },
    tunnels: opts.tunnels,
    inboxDomain: opts.inbox ? 'inbox.proctor.test' : undefined,
  };
  const resources = { db, blobs, logger };
  const inbox = opts.inbox
    ? await startInboxHost(
        { HOST: '127.0.0.1', PROCTOR_INBOX_DOMAIN: 'inbox.proctor.test', PROCTOR_INBOX_MAX_BYTES: 1024 * 1024 },
        resources,
        0,
      )
    : undefined;
  const worker =
    opts.worker === false
      ? undefined
      : await startWorker(
          {
            address,
            namespace: 'default',
            taskQueue,
            workflowBundle: await workflowBundle(),
            substitute: opts.substitute,
          },
          settings,
          resources,
        );
  const activityDeps = worker?.deps ?? createActivityDeps(settings, resources);
  const activities = worker?.activities ?? createActivities(activityDeps);
  const { browsers } = activityDeps;

  const appDeps: AppDeps = {
    db,
    config: {
      appUrl,
      publicUrl,
      PROCTOR_URL_TTL_SECONDS: 900,
      PROCTOR_RUN_CONCURRENCY: 100,
      ...(inbox && { PROCTOR_INBOX_DOMAIN: inbox.domain }),
    },
    temporal,
    blobs,
    logger,
  };
  const app = createApp(appDeps);
  const tenant = await seedProject(db, { organization: 'Acme', project: 'Shop' });
  const call: Stack['call'] = async (method, path, body) => {
    const res = await app.request(path, {
      method,
      headers: {
        authorization: `Bearer ${tenant.token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };

  return {
    db,
    app,
    tenant,
    temporal,
    activities,
    activityDeps,
    browsers,
    taskQueue,
    databaseUrl: databaseUrlOf(db),
    inbox,
    call,
    async close() {
      await inbox?.stop();
      if (worker) await worker.stop();
      else await browsers.close();
      await temporal.close();
      await db.destroy();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

/** Polls `GET path` until `done(body)`; returns that body. */
/** Anything that answers the API: the in-process stack, or one of the production shape's `proctor api` processes. */
export type ApiCaller = Pick<Stack, 'call'>;

async function pollApi(
  stack: ApiCaller,
  path: string,
  done: (body: any) => boolean,
  what: string,
  timeoutMs: number,
): Promise<any> {
  let body: any;
  await waitFor(
    async () => {
      body = (await stack.call('GET', path)).body;
      return done(body);
    },
    timeoutMs,
    what,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last answer: ${JSON.stringify(body)}`);
  });
  return body;
}

/** Polls the API until the test case leaves GENERATING. */
export const waitForGeneration = (stack: ApiCaller, id: string, timeoutMs = 60_000): Promise<any> =>
  pollApi(
    stack,
    `/v1/test-cases/${id}`,
    (t) => t.generationStatus !== 'GENERATING',
    `test case ${id} to leave GENERATING`,
    timeoutMs,
  );

export const isTerminalRun = (run: any): boolean => ['COMPLETED', 'ERROR', 'CANCELLED'].includes(run.status);

/** Polls `GET /v1/run/{shortId}?testCases=all` until `until(run)` (by default: the run ended). */
export const waitForRun = (
  stack: ApiCaller,
  shortId: string,
  until: (run: any) => boolean = isTerminalRun,
  timeoutMs = 90_000,
): Promise<any> => pollApi(stack, `/v1/run/${shortId}?testCases=all`, until, `run ${shortId}`, timeoutMs);
