// Shared by the API, the worker and the workflows: no Node imports here (it is bundled into the sandbox).
import { defineQuery, defineSignal } from '@temporalio/workflow';

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

/** Blob keys that workflows hand between activities (the data itself never enters a workflow history). */
export const blobKeys = {
  /** A resume-from dependency's final browser state (cookies, localStorage, sessionStorage), for its dependents. */
  browserState: (runShortId: string, testCaseId: string) => `runs/${runShortId}/state/${testCaseId}.json`,
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

export interface TestExecutionInput {
  runId: string;
  runShortId: string;
  projectId: string;
  runTestCaseId: string;
  testCaseId: string;
  baseUrl: string | null;
  device: unknown;
  /** Blob key of the resume-from dependency's browser state: the test starts where that one ended. */
  stateKey?: string;
  /** Dependents resume from this test: after it passes, store its final browser state under this blob key. */
  captureStateKey?: string;
  heal: boolean;
}

export interface TestExecutionResult {
  outcome: 'PASSED' | 'FAILED' | 'ERROR';
}

// ---- chatConversation: one entity workflow per conversation (`chat:<shortId>`), each turn a `chatTurn` child ----
// (Kept in one block: the API signals it with these definitions without importing workflow code.)

/** A user message the API has written (with its assistant placeholder), to be answered in turn order. */
export interface ChatTurnRequest {
  turn: number;
  userMessageId: string;
  assistantMessageId: string;
}

export interface ChatConversationInput {
  chatId: string;
  chatShortId: string;
  projectId: string;
  /** Turns accepted but not answered yet, carried over a continue-as-new. */
  pending?: ChatTurnRequest[];
}

export interface ChatTurnInput extends ChatTurnRequest {
  chatId: string;
  chatShortId: string;
  projectId: string;
}

export interface ChatTurnResult {
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
  toolsUsed: string[];
}

export const chatMessageSignal = defineSignal<[ChatTurnRequest]>('chatMessage');
/** Ends the reply of this assistant message as CANCELLED (streaming now, or still waiting its turn). */
export const cancelChatReplySignal = defineSignal<[{ assistantMessageId: string }]>('cancelChatReply');
/** Turn numbers answered so far and waiting, for operators and tests. */
export const chatStateQuery = defineQuery<{ answered: number; pending: number[]; current: number | null }>('chatState');

export const chatWorkflowTypes = { conversation: 'chatConversation', turn: 'chatTurn' } as const;
export const chatTurnWorkflowId = (chatShortId: string, turn: number) => `chat:${chatShortId}:turn:${turn}`;
