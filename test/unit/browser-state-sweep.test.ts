import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { createApplication, deleteApplication, getApplication } from '../../src/db/queries/applications.js';
import { insertRun } from '../../src/db/queries/runs.js';
import type { RunStatus } from '../../src/db/schema.js';
import { stateGraceMs, sweepBrowserStates } from '../../src/services/browser-states.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { createS3BlobStore } from '../../src/storage/s3.js';
import { discoveryBlobKeys } from '../../workflows/discovery-contract.js';
import { blobKeys } from '../../workflows/plan-run-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { freshDatabase } from '../support/app-context.js';
import { insertDiscoveryRows } from '../support/discovery-rows.js';
import { minioBucket, startInstalledMinio } from '../support/minio.js';

// The sweep of resume-from browser states that no plan run or discovery will delete, against the stores Proctor runs
// on: a directory (`proctor dev`) and MinIO (S3), with a real database for the runs' and discoveries' statuses.

async function fsStore(): Promise<{ store: BlobStore; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-sweep-'));
  const store = createFsBlobStore({ dir, secret: randomBytes(16).toString('hex'), publicUrl: 'http://127.0.0.1:1' });
  return { store, stop: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function s3Store(): Promise<{ store: BlobStore; stop: () => Promise<void> }> {
  const minio = await startInstalledMinio();
  const store = createS3BlobStore(minioBucket(minio, 'proctor-sweep'));
  return { store, stop: () => minio.stop() };
}

describe.each([
  ['fs', fsStore],
  ['MinIO', s3Store],
] as const)('browser-state sweep on the %s store', (_name, open) => {
  let db: DB;
  let projectId: string;
  let store: BlobStore;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    [db, { store, stop }] = await Promise.all([freshDatabase('pglite'), open()]);
    await store.ensureReady();
    ({ projectId } = await seedProject(db, { organization: 'Acme', project: 'Shop' }));
  }, 60_000);
  afterAll(async () => {
    await stop?.();
    await db?.destroy();
  });

  const run = async (status: RunStatus) => {
    const { id, shortId } = await insertRun(db, { projectId, planId: null, meta: { trigger: 'API' }, tests: [] });
    await db.updateTable('runs').set({ status }).where('id', '=', id).execute();
    return { id, shortId };
  };
  const json = Buffer.from('{"cookies":[]}');
  const exists = async (key: string) => (await store.stat(key)) !== null;
  /** The sweep's dependencies, with a Temporal in which only `lostWorkflowId` is gone; `asked` records each question. */
  const sweepDeps = (lostWorkflowId: string) => {
    const asked: string[][] = [];
    const workflowsGone = async (ids: string[]) => (
      asked.push([...ids].sort()),
      new Set(ids.filter((id) => id === lostWorkflowId))
    );
    return { asked, deps: { db, blobs: store, workflowsGone } };
  };

  it('lists every object under a folder, nested ones too, and nothing for a folder that does not exist', async () => {
    const base = `runs/list-${randomBytes(4).toString('hex')}`;
    await Promise.all(
      [`${base}/a.json`, `${base}/tc/trace.zip`, `${base}/tc/deep/shot.png`].map((k) => store.put(k, json)),
    );
    const listed = [];
    for await (const blob of store.list(`${base}/`)) listed.push(blob);

    expect(listed.map((b) => b.key).sort()).toEqual([
      `${base}/a.json`,
      `${base}/tc/deep/shot.png`,
      `${base}/tc/trace.zip`,
    ]);
    expect(listed.every((b) => Math.abs(b.lastModified.getTime() - Date.now()) < 60_000)).toBe(true);
    for await (const blob of store.list('runs/no-such-run/')) throw new Error(`listed ${blob.key}`);
    expect(() => store.list('runs/../etc/')).toThrow(/invalid blob/);
  });

  it('deletes the states and graphs of ended, deleted and workflow-less runs after the grace period; keeps the rest and every other artifact', async () => {
    const ended = await run('COMPLETED');
    const cancelled = await run('CANCELLED');
    const terminated = await run('RUNNING'); // its workflow was terminated: the database never heard
    const running = await run('RUNNING');
    const deletedRun = { shortId: `run_gone${randomBytes(4).toString('hex')}` };
    const states = Object.fromEntries(
      Object.entries({ ended, cancelled, terminated, running, deletedRun }).map(([name, r]) => [
        name,
        blobKeys.browserState(r.shortId, 'tc-login'),
      ]),
    );
    // A run's graph (read by the runs of its chain) has the same life as its states.
    const graphs = Object.fromEntries(
      Object.entries({ ended, cancelled, terminated, running, deletedRun }).map(([name, r]) => [
        name,
        blobKeys.runGraph(r.shortId),
      ]),
    );
    const artifact = `runs/${ended.shortId}/tc-login/screenshot-1.png`;
    await Promise.all(
      [...Object.values(states), ...Object.values(graphs), artifact].map((k) => store.put(k, json, 'application/json')),
    );
    const { asked, deps } = sweepDeps(workflowIds.planRun(terminated.shortId));

    // Within the grace period the plan run's own clean-up may still come: nothing is touched.
    const early = await sweepBrowserStates(deps);
    expect(early.deleted).toBe(0);
    for (const key of Object.values(states)) expect(await exists(key)).toBe(true);

    const later = await sweepBrowserStates(deps, new Date(Date.now() + stateGraceMs + 60_000));
    expect(await exists(states.ended!)).toBe(false);
    expect(await exists(states.cancelled!)).toBe(false);
    expect(await exists(states.terminated!)).toBe(false);
    expect(await exists(states.deletedRun!)).toBe(false);
    expect(await exists(states.running!)).toBe(true); // its dependents may still read it
    for (const name of ['ended', 'cancelled', 'terminated', 'deletedRun'])
      expect(await exists(graphs[name]!), `${name}'s graph`).toBe(false);
    expect(await exists(graphs.running!)).toBe(true); // the run's next continuation reads it
    expect(await exists(artifact)).toBe(true); // screenshots and traces are not states
    expect(later.deleted).toBeGreaterThanOrEqual(8);
    // Temporal is asked only about runs the database still calls open.
    expect(asked.at(-1)).toEqual([terminated.shortId, running.shortId].map(workflowIds.planRun).sort());

    // A sweep after that finds nothing more of these runs to delete.
    const again = await sweepBrowserStates(deps, new Date(Date.now() + stateGraceMs + 60_000));
    expect(again.deleted).toBe(0);
  });

  it("deletes a discovery's resume-from state once the discovery ended, was deleted or lost its workflow; keeps a running one's", async () => {
    const application = async (name: string) => {
      const { shortId } = await createApplication(db, projectId, { name, kind: 'web' });
      return (await getApplication(db, projectId, shortId))!.id;
    };
    const applicationId = await application('Back office');
    const discovery = async (status: 'RUNNING' | 'COMPLETED' | 'FAILED', appId = applicationId) =>
      (
        await insertDiscoveryRows(db, {
          projectId,
          applicationId: appId,
          startUrl: 'http://app.test/',
          status,
          map: [],
          nav: [],
        })
      ).shortId;
    const completed = await discovery('COMPLETED');
    const failed = await discovery('FAILED');
    const terminated = await discovery('RUNNING'); // its workflow was terminated: finishDiscovery never ran
    const running = await discovery('RUNNING');
    // A discovery of an application deleted while it ran: the rows go with the application, the blob stays.
    const doomed = await application('Doomed');
    const deleted = await discovery('RUNNING', doomed);
    await deleteApplication(db, doomed);
    const states = { completed, failed, terminated, running, deleted };
    const keys = Object.fromEntries(
      Object.entries(states).map(([name, id]) => [name, discoveryBlobKeys.browserState(id)]),
    );
    const notAState = `discoveries/${completed}/notes.txt`;
    await Promise.all([...Object.values(keys), notAState].map((k) => store.put(k, json, 'application/json')));
    const { asked, deps } = sweepDeps(workflowIds.discovery(terminated));

    // Within the grace period the discovery's own clean-up may still come.
    await sweepBrowserStates(deps);
    for (const key of Object.values(keys)) expect(await exists(key)).toBe(true);

    await sweepBrowserStates(deps, new Date(Date.now() + stateGraceMs + 60_000));
    for (const name of ['completed', 'failed', 'terminated', 'deleted'])
      expect(await exists(keys[name]!), `${name}'s state`).toBe(false);
    expect(await exists(keys.running!)).toBe(true); // its next page visit reads it
    expect(await exists(notAState)).toBe(true);
    // Temporal is asked only about the discoveries the database still calls running.
    expect(asked.at(-1)).toEqual([terminated, running].map(workflowIds.discovery).sort());
  });
});
