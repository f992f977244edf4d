import type { ActivityDeps } from './deps.js';
import { createSystemActivities } from './system.js';

export type { ActivityDeps } from './deps.js';

/** Every activity the worker registers, built from injected dependencies (no globals). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
