// The planRun workflow's contract (workflows/planRun.ts, `run:<runShortId>`): its input, what one run of its chain
// carries to the next, its result, and the blob keys its activities hand each other. Its tests are testExecution
// children (workflows/test-execution-contract.ts).

/** Blob keys that a plan run's activities hand each other (the data itself never enters a workflow history). */
export const blobKeys = {
  /** A resume-from dependency's final browser state (cookies, localStorage, sessionStorage), for its dependents. */
  browserState: (runShortId: string, testCaseId: string) => `runs/${runShortId}/state/${testCaseId}.json`,
  /** A plan run's graph (src/domain/run-graph.ts), built by its first run and read by the runs its chain continues in. */
  runGraph: (runShortId: string) => `runs/${runShortId}/graph.json`,
};

export interface PlanRunInput {
  runId: string;
  runShortId: string;
  projectId: string;
  /** Tests of this run in parallel at most. */
  concurrency: number;
  /** Let the LLM heal moved elements during replay (when an LLM is configured). */
  heal: boolean;
  /** Continue as new once this run's history has this many events (default 10,000; tests set it low). */
  maxHistoryEvents?: number;
  /** Set by planRun itself when it continues as new: where the previous run of the chain left off. */
  carried?: PlanRunCarry;
}

/** The DAG state one run of a planRun chain hands to the next (kept small: no plan, no browser state). */
export interface PlanRunCarry {
  /** One letter per test in plan order, '-' for not finished yet (encodeOutcomes in src/domain/run-plan.ts). */
  outcomes: string;
  /** How many times the chain has continued as new so far. */
  continuations: number;
}

export interface PlanRunResult {
  status: 'COMPLETED' | 'ERROR' | 'CANCELLED';
  result: 'PASSED' | 'FAILED' | 'SKIPPED' | null;
  counts: Record<string, number>;
  /** Times the run continued as new to keep its history small (0 for runs of up to ~1,500 tests). */
  continuations: number;
}
