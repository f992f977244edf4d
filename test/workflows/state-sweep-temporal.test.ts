import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowsGone } from '../../src/cli/state-sweep.js';
import type { DB } from '../../src/db/database.js';
import { seedProject } from '../../src/db/queries/admin.js';
import { createApplication, getApplication } from '../../src/db/queries/applications.js';
import { insertRun } from '../../src/db/queries/runs.js';
import { stateGraceMs, sweepBrowserStates } from '../../src/services/browser-states.js';
import { createFsBlobStore } from '../../src/storage/fs.js';
import { discoveryBlobKeys } from '../../workflows/discovery-contract.js';
import { blobKeys } from '../../workflows/plan-run-contract.js';
import { workflowIds } from '../../workflows/shared.js';
import { freshDatabase } from '../support/app-context.js';
import { insertDiscoveryRows } from '../support/discovery-rows.js';
import { createWorkflowHarness, recorder, type WorkflowHarness } from '../support/workflow-harness.js';

// The sweep as the API runs it, asking a real Temporal server which runs' and discoveries' workflows are gone. A run
// (or discovery) whose workflow is terminated stays RUNNING in the database; its browser state must still be deleted.
// Any long-waiting workflow stands in for a plan run or a discovery here: the sweep only looks at the status of the
// `run:<id>` or `discovery:<id>` workflow.

let h: WorkflowHarness;
let db: DB;
let dir: string;
beforeAll(async () => {
  [h, db] = await Promise.all([createWorkflowHarness(), freshDatabase('pglite')]);
  dir = mkdtempSync(join(tmpdir(), 'proctor-sweep-'));
}, 60_000);
afterAll(async () => {
  await h?.teardown();
  await db?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('browser-state sweep with Temporal', () => {
  it('deletes the state of a RUNNING run or discovery whose workflow was terminated or never existed; keeps a running one', async () => {
    const blobs = createFsBlobStore({ dir, secret: randomBytes(16).toString('hex'), publicUrl: 'http://127.0.0.1:1' });
    const { projectId } = await seedProject(db, { organization: 'Acme', project: 'Shop' });
    const runs = await Promise.all(
      ['live', 'terminated', 'never'].map(() =>
        insertRun(db, { projectId, planId: null, meta: { trigger: 'API' }, tests: [] }),
      ),
    );
    await db.updateTable('runs').set({ status: 'RUNNING' }).execute();
    const [live, terminated, never] = runs.map((r) => r.shortId) as [string, string, string];
    const state = (run: string) => blobKeys.browserState(run, 'tc-login');
    for (const run of [live, terminated, never]) await blobs.put(state(run), Buffer.from('{}'));
    const application = await createApplication(db, projectId, { name: 'Shop', kind: 'web' });
    const { shortId: discovery } = await insertDiscoveryRows(db, {
      projectId,
      applicationId: (await getApplication(db, projectId, application.shortId))!.id,
      startUrl: 'http://app.test/',
      status: 'RUNNING',
      map: [],
      nav: [],
    });
    await blobs.put(discoveryBlobKeys.browserState(discovery), Buffer.from('{}'));

    // A burn-in waiting on a dependency that never comes: a workflow that stays open until terminated.
    const waiting = {
      burnInDependencies: recorder(async () => ({ exists: true, statuses: { 'dep-a': 'GENERATING' } })),
      endedDependencyBurnIns: recorder(async () => []),
    };
    const result = await h.withWorker(waiting, async (q) => {
      await q.start('burnIn', [{ projectId, testCaseId: 'tc' }], workflowIds.planRun(live));
      const gone = await q.start('burnIn', [{ projectId, testCaseId: 'tc' }], workflowIds.planRun(terminated));
      await gone.terminate('an operator stopped the run');
      const stopped = await q.start('burnIn', [{ projectId, testCaseId: 'tc' }], workflowIds.discovery(discovery));
      await stopped.terminate('an operator stopped the discovery');
      return sweepBrowserStates(
        { db, blobs, workflowsGone: (ids) => workflowsGone({ get: async () => h.client }, ids) },
        new Date(Date.now() + stateGraceMs + 60_000),
      );
    });

    expect(result).toEqual({ deleted: 3, kept: 1 });
    expect(await blobs.stat(discoveryBlobKeys.browserState(discovery))).toBeNull();
    expect(await blobs.stat(state(live))).not.toBeNull();
    expect(await blobs.stat(state(terminated))).toBeNull();
    expect(await blobs.stat(state(never))).toBeNull();
  });
});
