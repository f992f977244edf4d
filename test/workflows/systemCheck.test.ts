import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { useWorkflowHarness, recorder, type MockActivities, failureOf } from '../support/workflow-harness.js';

// systemCheck is what `proctor dev` and the boot test run to prove Temporal, a worker and the database answer.

const h = useWorkflowHarness();

describe('systemCheck', () => {
  it('answers with its nonce, the database check and the worker that ran it', async () => {
    const mocks = {
      checkDatabase: recorder(async () => ({ ok: true, workerIdentity: 'host-a:42' })),
    } satisfies MockActivities;
    const result = await h.withWorker(mocks, async (q) => (await q.start('systemCheck', [{ nonce: 'n-1' }])).result());

    expect(result).toEqual({ nonce: 'n-1', databaseOk: true, workerIdentity: 'host-a:42' });
    expect(mocks.checkDatabase.calls).toHaveLength(1);
  });

  it('a database that answers on the third attempt still passes the check', async () => {
    let attempts = 0;
    const mocks = {
      checkDatabase: recorder(async () => {
        if (++attempts < 3) throw new Error('connection refused');
        return { ok: true, workerIdentity: 'host-a:42' };
      }),
    } satisfies MockActivities;
    const result = await h.withWorker(mocks, async (q) => (await q.start('systemCheck', [{ nonce: 'n-2' }])).result());

    expect(result.databaseOk).toBe(true);
    expect(attempts).toBe(3);
  });

  it('a database that never answers fails the check with its error after three attempts', async () => {
    let attempts = 0;
    const mocks = {
      checkDatabase: recorder(async (): Promise<{ ok: boolean; workerIdentity: string }> => {
        attempts++;
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      }),
    } satisfies MockActivities;
    const err = await h.withWorker(mocks, async (q) => failureOf(await q.start('systemCheck', [{ nonce: 'n-3' }])));

    expect(err).toBeInstanceOf(WorkflowFailedError);
    const activity = (err as WorkflowFailedError).cause as ActivityFailure;
    expect(activity).toBeInstanceOf(ActivityFailure);
    expect(activity.cause).toBeInstanceOf(ApplicationFailure);
    expect(activity.cause?.message).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    expect(attempts).toBe(3);
  });
});
