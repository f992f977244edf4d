import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { AppDeps } from '../../src/api/context.js';
import { createDatabase, migrateToLatest, type DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createTemporalClientProvider } from '../../src/temporal/client.js';
import { createDatabaseIn } from './postgres.js';
import { workflowIds } from '../../workflows/shared.js';

export type DatabaseKind = 'pglite' | 'postgres';
export const databaseKinds: DatabaseKind[] = ['pglite', 'postgres'];

/**
 * A migrated database of the given kind, new for the caller: PGlite in memory or a fresh Postgres database, each
 * a copy of the one the global setup migrated. `migrateToLatest` still runs: on a copy it only checks it is current.
 */
export async function freshDatabase(kind: DatabaseKind): Promise<DB> {
  if (kind === 'pglite') {
    const db = createDatabase({ kind: 'pglite', from: new Blob([readFileSync(inject('pgliteDumpPath'))]) });
    await migrateToLatest(db);
    return db;
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url = await createDatabaseIn(inject('postgresUrl'), name, inject('postgresTemplate'));
  const db = createDatabase({ kind: 'postgres', url, maxConnections: 5 });
  await migrateToLatest(db);
  databaseUrls.set(db, url);
  return db;
}

const databaseUrls = new WeakMap<DB, string>();
/** The connection string of a Postgres database from `freshDatabase`, for a process of its own. */
export const databaseUrlOf = (db: DB): string | undefined => databaseUrls.get(db);

/**
 * Plain SQL behind the API's back, as another process (`proctor admin`, a replica, psql) writes it: on Postgres
 * from a connection of its own, so only the change feed can tell the API. PGlite has one process: its own handle.
 */
export async function writeFromElsewhere(db: DB, query: string, values: unknown[]): Promise<void> {
  const url = databaseUrlOf(db);
  if (!url) {
    await db.executeQuery(CompiledQuery.raw(query, values));
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(query, values);
  } finally {
    await client.end();
  }
}

export interface Tenant {
  organizationId: string;
  projectId: string;
  token: string;
}

export interface ApiContext {
  app: ReturnType<typeof createApp>;
  db: DB;
  deps: AppDeps;
  /** The main project of the test. */
  tenant: Tenant;
  /** Another organization's project: its ids must be invisible to `tenant`. */
  other: Tenant;
  /** JSON request as `tenant` (or with the given token); returns status, body and headers. */
  call(
    method: string,
    path: string,
    body?: unknown,
    token?: string | null,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function createApiContext(
  kind: DatabaseKind,
  opts: { temporalAddress?: string; logger?: Logger; appUrl?: string; blobs?: BlobStore } = {},
): Promise<ApiContext> {
  const db = await freshDatabase(kind);
  const blobDir = mkdtempSync(join(tmpdir(), 'proctor-blobs-'));
  const publicUrl = 'http://127.0.0.1:3000';
  const temporal = createTemporalClientProvider({
    address: opts.temporalAddress ?? inject('temporalAddress'),
    namespace: 'default',
    taskQueue: `test-${randomBytes(4).toString('hex')}`,
  });
  const deps: AppDeps = {
    db,
    config: {
      appUrl: opts.appUrl ?? 'https://app.proctor.test',
      publicUrl,
      PROCTOR_URL_TTL_SECONDS: 900,
      PROCTOR_RUN_CONCURRENCY: 100,
    },
    temporal,
    blobs: opts.blobs ?? createFsBlobStore({ dir: blobDir, secret: randomBytes(32).toString('hex'), publicUrl }),
    logger: opts.logger ?? silentLogger,
  };
  const app = createApp(deps);
  const tenant = await seedProject(db, { organization: 'Acme', project: 'Shop' });
  const other = await seedProject(db, { organization: 'Globex', project: 'Other' });

  const call: ApiContext['call'] = async (method, path, body, token = tenant.token) => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await app.request(path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    if (res.headers.get('content-type')?.includes('json')) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    app,
    db,
    deps,
    tenant,
    other,
    call,
    async close() {
      await temporal.close();
      await db.destroy();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

/**
 * The API context of one describe block: created in its beforeAll, closed in its afterAll. The returned object is
 * filled in once beforeAll ran, so the tests read it when they run.
 */
export function useApiContext(kind: DatabaseKind): ApiContext {
  const ctx = {} as ApiContext;
  beforeAll(async () => {
    Object.assign(ctx, await createApiContext(kind));
  });
  afterAll(() => ctx.close?.());
  return ctx;
}

/**
 * Terminates the burn-in workflows of these test cases (created through POST /v1/test-cases: no worker runs them
 * here), so none outlives the file in the shared Temporal server. One already gone is no error.
 */
export async function terminateBurnIns(ctx: ApiContext, testCaseIds: string[]): Promise<void> {
  const client = await ctx.deps.temporal.get();
  await Promise.all(
    testCaseIds.map((id) =>
      client.workflow
        .getHandle(workflowIds.burnIn(id))
        .terminate('test cleanup')
        .catch(() => undefined),
    ),
  );
}

/** The workflows on this context's task queue that Temporal's visibility lists for `filter` (none: all). */
async function queueWorkflows(ctx: ApiContext, filter = ''): Promise<{ workflowId: string; runId: string }[]> {
  const client = await ctx.deps.temporal.get();
  const found: { workflowId: string; runId: string }[] = [];
  const query = `TaskQueue = '${ctx.deps.temporal.taskQueue}'${filter && ` AND ${filter}`}`;
  for await (const wf of client.workflow.list({ query })) found.push({ workflowId: wf.workflowId, runId: wf.runId });
  return found;
}

/** The ids of the workflows started on this context's task queue, for a test that checks what a request started. */
export const startedWorkflowIds = async (ctx: ApiContext): Promise<string[]> =>
  (await queueWorkflows(ctx)).map((wf) => wf.workflowId);

/**
 * Terminates the workflows still running on this context's task queue: no worker runs them here, and none may
 * outlive the file in the shared Temporal server. One that ends meanwhile is no error.
 */
export async function terminateRunningWorkflows(ctx: ApiContext): Promise<void> {
  const client = await ctx.deps.temporal.get();
  const running = await queueWorkflows(ctx, `ExecutionStatus = 'Running'`);
  await Promise.all(
    running.map((wf) =>
      client.workflow
        .getHandle(wf.workflowId, wf.runId)
        .terminate('test over')
        .catch(() => undefined),
    ),
  );
}
