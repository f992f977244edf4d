// The status badge: what the newest run of a project (or of one of its plans) says, in a word and a colour.
import { findIdByShortId } from '../db/queries/lookups.js';
import { latestRunOutcome } from '../db/queries/runs.js';
import type { RunStatus, TestResult } from '../db/schema.js';
import { NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

export type BadgeState = { message: string; color: string };

export function badgeState(latest: { status: RunStatus; result: TestResult | null } | undefined): BadgeState {
  if (!latest) return { message: 'no runs', color: 'lightgrey' };
  switch (latest.status) {
    case 'INITIATED':
    case 'RUNNING':
      return { message: 'running', color: 'blue' };
    case 'CANCELLED':
      return { message: 'cancelled', color: 'grey' };
    case 'ERROR':
      return { message: 'error', color: 'orange' };
    case 'COMPLETED':
      return latest.result === 'PASSED'
        ? { message: 'passing', color: 'brightgreen' }
        : { message: 'failing', color: 'red' };
  }
}

/**
 * The badge of the project, or of one of its plans (NotFoundError when it is not the project's). The newest run
 * by creation: when it is still under way, a run newer than the last finished one is running; otherwise it is
 * the last finished one.
 */
export async function projectBadgeState(
  { db }: ServiceContext,
  projectId: string,
  testPlanShortId: string | undefined,
): Promise<BadgeState> {
  let testPlanId: string | undefined;
  if (testPlanShortId) {
    testPlanId = await findIdByShortId(db, 'test_plans', projectId, testPlanShortId);
    if (!testPlanId) throw new NotFoundError('Test plan');
  }
  return badgeState(await latestRunOutcome(db, projectId, testPlanId));
}
