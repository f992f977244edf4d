import { sql } from 'kysely';
import type { DB } from '../database.js';
import type { LiveFramesTable } from '../schema.js';

export type LiveKind = LiveFramesTable['kind'];
export interface LiveRowKey {
  projectId: string;
  kind: LiveKind;
  subjectId: string;
}

/** The row's key as columns: what an insert writes and every other statement matches. */
const byKey = (key: LiveRowKey) => ({ kind: key.kind, subject_id: key.subjectId, project_id: key.projectId });

/**
 * Starts (or restarts, on a retried activity) the live session: no frame, no steps. Rows left by a worker that died
 * mid-session (nothing written for `staleAfterMs`) go first: frames are not kept.
 */
export async function openLiveRow(db: DB, key: LiveRowKey, staleAfterMs: number): Promise<void> {
  await db
    .deleteFrom('live_frames')
    .where('updated_at', '<', new Date(Date.now() - staleAfterMs))
    .execute();
  await db
    .insertInto('live_frames')
    .values({ ...byKey(key), steps: '[]' })
    .onConflict((oc) =>
      oc
        .columns(['kind', 'subject_id'])
        .doUpdateSet({ frame: null, frame_url: null, steps: '[]', started_at: sql`now()`, updated_at: sql`now()` }),
    )
    .execute();
}

/** Writes the latest frame and/or the steps; answers whether someone watched within `watchedSince` (undefined: no row). */
export async function updateLiveRow(
  db: DB,
  key: LiveRowKey,
  update: { frame?: { jpeg: Buffer; url: string }; steps?: unknown[] },
  watchedSince: Date,
): Promise<boolean | undefined> {
  const row = await db
    .updateTable('live_frames')
    .set({
      updated_at: sql`now()`,
      ...(update.frame && { frame: update.frame.jpeg, frame_url: update.frame.url, frame_seq: sql`frame_seq + 1` }),
      ...(update.steps && { steps: JSON.stringify(update.steps) }),
    })
    .where((eb) => eb.and(byKey(key)))
    .returning(sql<boolean>`coalesce(watched_at >= ${watchedSince}, false)`.as('watched'))
    .executeTakeFirst();
  return row?.watched;
}

export async function deleteLiveRow(db: DB, key: LiveRowKey): Promise<void> {
  await db
    .deleteFrom('live_frames')
    .where((eb) => eb.and(byKey(key)))
    .execute();
}

/** What a viewer polls: the frame's number and the steps (cheap), the frame itself only when it is newer than `afterSeq`. */
export async function readLiveRow(db: DB, key: LiveRowKey, afterSeq: number) {
  return db
    .selectFrom('live_frames')
    .select([
      'frame_seq',
      'frame_url',
      'steps',
      'started_at',
      sql<Buffer | null>`case when frame_seq > ${afterSeq} then frame end`.as('frame'),
    ])
    .where((eb) => eb.and(byKey(key)))
    .executeTakeFirst();
}

/** A viewer is connected: the worker writes frames of a run's test only while someone watches. */
export async function touchLiveRow(db: DB, key: LiveRowKey): Promise<void> {
  await db
    .updateTable('live_frames')
    .set({ watched_at: sql`now()` })
    .where((eb) => eb.and(byKey(key)))
    .execute();
}

/** The test case a burn-in view is about, within the project. */
export async function findBurnInSubject(db: DB, projectId: string, testCaseId: string) {
  return db
    .selectFrom('test_cases')
    .select(['id', 'name', 'generation_status'])
    .where('project_id', '=', projectId)
    .where('id', '=', testCaseId)
    .executeTakeFirst();
}

/** The run's test a run view is about, within the project, with its run. */
export async function findRunTestSubject(db: DB, projectId: string, runTestCaseId: string) {
  return db
    .selectFrom('run_test_cases')
    .innerJoin('runs', 'runs.id', 'run_test_cases.run_id')
    .select([
      'run_test_cases.id',
      'run_test_cases.name',
      'run_test_cases.status',
      'runs.short_id as run_short_id',
      'runs.status as run_status',
    ])
    .where('runs.project_id', '=', projectId)
    .where('run_test_cases.id', '=', runTestCaseId)
    .executeTakeFirst();
}
