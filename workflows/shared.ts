// Shared by the API, the worker and the workflows: no Node imports here (it is bundled into the sandbox).

export const taskQueues = {
  /** Default queue for orchestration and light activities; overridable by TEMPORAL_TASK_QUEUE. */
  main: 'proctor',
} as const;

export const workflowIds = {
  burnIn: (testCaseId: string) => `burn-in:${testCaseId}`,
  planRun: (runShortId: string) => `run:${runShortId}`,
  testExecution: (runShortId: string, testCaseId: string) => `run:${runShortId}:${testCaseId}`,
  chat: (chatShortId: string) => `chat:${chatShortId}`,
  mergeRequestReview: (provider: string, repo: string, number: number) => `mr:${provider}:${repo}:${number}`,
  systemCheck: (id: string) => `system-check:${id}`,
};

export interface SystemCheckInput {
  /** Echoed back, so a caller can tell its own run from another. */
  nonce: string;
}

export interface SystemCheckResult {
  nonce: string;
  databaseOk: boolean;
  workerIdentity: string;
}

/** Workflow type names, so the API starts workflows without importing workflow code. */
export const workflowTypes = {
  burnIn: 'burnIn',
  planRun: 'planRun',
  testExecution: 'testExecution',
  systemCheck: 'systemCheck',
  scheduledPlanRun: 'scheduledPlanRun',
} as const;

export interface BurnInInput {
  projectId: string;
  testCaseId: string;
}

export interface BurnInResult {
  status: 'COMPLETED' | 'FAILED';
  failureReason?: string;
  stepCount: number;
}

export interface PlanRunInput {
  runId: string;
  runShortId: string;
  projectId: string;
  /** Tests of this run in parallel at most. */
  concurrency: number;
  /** Let the LLM heal moved elements during replay (when an LLM is configured). */
  heal: boolean;
}

export interface PlanRunResult {
  status: 'COMPLETED' | 'ERROR' | 'CANCELLED';
  result: 'PASSED' | 'FAILED' | 'SKIPPED' | null;
  counts: Record<string, number>;
}

export interface TestExecutionInput {
  runId: string;
  runShortId: string;
  projectId: string;
  runTestCaseId: string;
  testCaseId: string;
  baseUrl: string | null;
  /** A mobile build to install instead of opening a URL. */
  build?: MobileBuildRef | null;
  device: unknown;
  /** Browser state of the resume-from dependency. */
  state?: unknown;
  /** Dependents resume from this test: return its final browser state. */
  captureState: boolean;
  heal: boolean;
}

export interface MobileBuildRef {
  shortId: string;
  platform: 'ios' | 'android';
}

export interface TestExecutionResult {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
  state?: unknown;
}
