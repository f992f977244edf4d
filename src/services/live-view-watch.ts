import {
  findBurnInSubject,
  findRunTestSubject,
  readLiveRow,
  touchLiveRow,
  type LiveKind,
  type LiveRowKey,
} from '../db/queries/live-frames.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { cancelBurnIn } from '../temporal/lifecycle.js';
import { cancelRun } from './runs.js';
import type { LiveStep } from './live-view.js';
import type { ServiceContext } from './context.js';

/** What a live page is about: a test case's burn-in or a run's test, found within the project only. */
export interface LiveSubject {
  kind: LiveKind;
  id: string;
  name: string;
  /** Still recording or running: there is (or soon will be) something to watch. */
  running: boolean;
  /** Where the result is shown once it ends. */
  resultPath: string;
}

export const liveKinds = { 'burn-in': 'burn_in', 'run-test': 'run_test' } as const satisfies Record<string, LiveKind>;

export async function findLiveSubject(
  { db }: ServiceContext,
  projectId: string,
  kind: LiveKind,
  id: string,
): Promise<LiveSubject | undefined> {
  if (kind === 'burn_in') {
    const t = await findBurnInSubject(db, projectId, id);
    return (
      t && { kind, id, name: t.name, running: t.generation_status === 'GENERATING', resultPath: `/test-cases/${t.id}` }
    );
  }
  const t = await findRunTestSubject(db, projectId, id);
  return (
    t && {
      kind,
      id,
      name: t.name,
      running:
        (t.status === 'PENDING' || t.status === 'RUNNING') &&
        (t.run_status === 'INITIATED' || t.run_status === 'RUNNING'),
      resultPath: `/runs/${t.run_short_id}`,
    }
  );
}

export interface LiveState {
  frameSeq: number;
  /** Only when newer than the frame the viewer has. */
  frame?: Buffer;
  frameUrl: string | null;
  steps: LiveStep[];
  startedAt: Date;
}

/** The live session now (undefined: none: not started yet, or over). The subject must come from `findLiveSubject`. */
export async function readLiveState(
  { db }: ServiceContext,
  projectId: string,
  subject: LiveSubject,
  afterSeq: number,
): Promise<LiveState | undefined> {
  const row = await readLiveRow(db, key(projectId, subject), afterSeq);
  if (!row) return undefined;
  return {
    frameSeq: row.frame_seq,
    frame: row.frame ?? undefined,
    frameUrl: row.frame_url,
    steps: row.steps as LiveStep[],
    startedAt: row.started_at,
  };
}

/** A viewer is watching: the worker keeps writing frames of a run's test while this is recent. */
export const markWatched = ({ db }: ServiceContext, projectId: string, subject: LiveSubject): Promise<void> =>
  touchLiveRow(db, key(projectId, subject));

/**
 * Stops what is shown: a burn-in is cancelled (stored as FAILED, "the burn-in was cancelled"); a run's test stops
 * with its run, through `cancelRun` as POST /v1/run/{shortId}/cancel does.
 */
export async function stopLive(
  deps: ServiceContext<'temporal'>,
  projectId: string,
  kind: LiveKind,
  id: string,
): Promise<LiveSubject> {
  const subject = await findLiveSubject(deps, projectId, kind, id);
  if (!subject) throw new NotFoundError(kind === 'burn_in' ? 'Test case' : 'Test of a run');
  if (!subject.running)
    throw new ConflictError(kind === 'burn_in' ? 'the burn-in already ended' : 'the test already ended');
  if (kind === 'burn_in') await cancelBurnIn(deps.temporal, id);
  else await cancelRun(deps, { projectId, runShortId: subject.resultPath.split('/').pop()! });
  return subject;
}

const key = (projectId: string, subject: LiveSubject): LiveRowKey => ({
  projectId,
  kind: subject.kind,
  subjectId: subject.id,
});
