import type { ActivityDeps } from './deps.js';
import { createBurnInActivities } from './burn-in.js';
import { createBurnInDependencyActivities } from './burn-in-dependencies.js';
import { createBurnInVerifyActivities } from './burn-in-verify.js';
import { createSystemActivities } from './system.js';
import { createTestExecutionActivities } from './test-execution.js';
import { createMobileActivities } from './mobile.js';
import { createRunActivities } from './runs.js';
import { createPlanTestActivities } from './plan-test.js';
import { createScheduleActivities } from './schedules.js';
import { createChatActivities } from './chat.js';
import { createChangeReviewActivities } from './change-review.js';
import { createChangeReviewResultActivities } from './change-review-results.js';
import { createMergeRequestActivities } from './merge-requests.js';
import { createInsertStepActivities } from './insert-step.js';
import { createDiscoveryActivities } from './discovery.js';
import { createDiscoveryScheduleActivities } from './discovery-schedules.js';
import { createGitSyncActivities } from './git-sync.js';
import { mapDomainErrors } from './failures.js';
import { createNotifyActivities } from '../src/notify/run-notifications.js';

export type { ActivityDeps } from './deps.js';

/** Every activity the worker registers, built from injected dependencies (no globals); domain errors mapped once. */
export function createActivities(deps: ActivityDeps) {
  return withComposites(createParts(deps));
}

function createParts(deps: ActivityDeps) {
  return mapDomainErrors({
    ...createSystemActivities(deps),
    ...createBurnInActivities(deps),
    ...createBurnInDependencyActivities(deps),
    ...createBurnInVerifyActivities(deps),
    ...createTestExecutionActivities(deps),
    ...createMobileActivities(deps),
    ...createRunActivities(deps),
    ...createScheduleActivities(deps),
    ...createChatActivities(deps),
    ...createChangeReviewActivities(deps),
    ...createChangeReviewResultActivities(deps),
    ...createMergeRequestActivities(deps),
    ...createInsertStepActivities(deps),
    ...createDiscoveryActivities(deps),
    ...createDiscoveryScheduleActivities(deps),
    ...createGitSyncActivities(deps),
    ...createNotifyActivities({ db: deps.db, logger: deps.logger, ...deps.notify }),
  });
}

/**
 * Activities made of other activities (a plan run's test: mark started, replay, record), built over the registered
 * parts. A worker that swaps a part (bench/plan-run's stand-in replay) composes again after the swap, so the
 * composite calls the swapped part.
 */
export function withComposites<P extends ReturnType<typeof createParts>>(parts: P) {
  return { ...parts, ...createPlanTestActivities(parts) };
}

/** What workflows proxy: each imports this one type (as a type only) instead of deriving it again. */
export type Activities = ReturnType<typeof createActivities>;
