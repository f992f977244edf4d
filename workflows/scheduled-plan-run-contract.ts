// The scheduledPlanRun workflow's contract (workflows/scheduledPlanRun.ts): what a plan's Temporal Schedule starts.
import type { PlanRunResult } from './plan-run-contract.js';

/** What a plan's Temporal Schedule passes to each workflow it starts. */
export interface ScheduledPlanRunInput {
  projectId: string;
  testPlanId: string;
  /** The Temporal Schedule id (`plan-schedule:<row id>`). */
  scheduleId: string;
  /** Tests of the run in parallel at most; 100 when absent. */
  concurrency?: number;
}

export type ScheduledPlanRunResult = (PlanRunResult & { runShortId: string }) | null;
