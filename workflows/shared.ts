// Every Temporal contract in one place, shared by the API, the worker and the workflows: task queues, workflow
// ids and type names, inputs and results, failure types, signals, queries and updates. No Node imports here (it
// is bundled into the workflow sandbox); the API signals a workflow with these definitions without importing it.
import { ApplicationFailure, defineQuery, defineSignal } from '@temporalio/workflow';
import type { QualityDelta } from '../src/domain/quality.js';
import type { GitProviderId, MergeRequestRef, ReviewVerdict } from '../src/domain/git.js';
import type { FailureKind, StepChange } from '../src/domain/verdicts.js';
import type { FailedReplay } from '../src/domain/recording-check.js';
import type { Step } from '../src/domain/steps.js';
import type { DeviceSettings } from '../src/domain/device.js';

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
  insertStep: (insertionId: string) => `insert-step:${insertionId}`,
};

/** Blob keys that workflows hand between activities (the data itself never enters a workflow history). */
export const blobKeys = {
  /** A resume-from dependency's final browser state (cookies, localStorage, sessionStorage), for its dependents. */
  browserState: (runShortId: string, testCaseId: string) => `runs/${runShortId}/state/${testCaseId}.json`,
  /** A plan run's graph (src/domain/run-graph.ts), built by its first run and read by the runs its chain continues in. */
  runGraph: (runShortId: string) => `runs/${runShortId}/graph.json`,
};
/**
 * The workflows the worker registers, by type name, and what each takes and returns. Declared here, not derived
 * from the implementations, so this module stays a leaf: workflows/index.ts checks its exports against it.
 */
export interface Workflows {
  systemCheck: (input: SystemCheckInput) => Promise<SystemCheckResult>;
  burnIn: (input: BurnInInput) => Promise<BurnInResult>;
  planRun: (input: PlanRunInput) => Promise<PlanRunResult>;
  testExecution: (input: TestExecutionInput) => Promise<TestExecutionResult>;
  scheduledPlanRun: (input: ScheduledPlanRunInput) => Promise<ScheduledPlanRunResult>;
  chatConversation: (input: ChatConversationInput) => Promise<void>;
  chatTurn: (input: ChatTurnInput) => Promise<ChatTurnResult>;
  changeReview: (input: ChangeReviewInput) => Promise<ChangeReviewResult>;
  mergeRequestReview: (input: MergeRequestReviewInput) => Promise<void>;
  insertStep: (input: InsertStepInput) => Promise<InsertStepResult>;
}
export type WorkflowType = keyof Workflows;

/**
 * Type names for what cannot pass a workflow function (a Schedule's action, the lifecycle helpers): tsc checks
 * every entry against `Workflows`, which workflows/index.ts satisfies, so a typo or a renamed workflow fails the
 * build, not a run.
 */
export const workflowTypes = {
  burnIn: 'burnIn',
  planRun: 'planRun',
  testExecution: 'testExecution',
  systemCheck: 'systemCheck',
  scheduledPlanRun: 'scheduledPlanRun',
  chatConversation: 'chatConversation',
  chatTurn: 'chatTurn',
  changeReview: 'changeReview',
  mergeRequestReview: 'mergeRequestReview',
  insertStep: 'insertStep',
} as const satisfies { [K in WorkflowType]: K };

/**
 * `ApplicationFailure` types thrown by activities. The first group is permanent (never retried); `unreachable`
 * is retried by the activity's policy (a deployment may be restarting).
 */
export const failureTypes = {
  /** A domain error (src/domain/errors.ts), mapped once in activities/failures.ts. */
  notFound: 'NotFound',
  invalid: 'Invalid',
  nothingToRun: 'NothingToRun',
  conflict: 'Conflict',
  llmNotConfigured: 'LlmNotConfigured',
  llmUnavailable: 'LlmUnavailable',
  badDefinition: 'BadTestDefinition',
  unreachable: 'ApplicationUnreachable',
  /** A mobile test with no device farm configured: it cannot run, and says so as its ERROR. */
  noDeviceFarm: 'NoDeviceFarm',
  /** A change review that ended without a verdict (FAILED or CANCELLED); its reply says why. */
  changeReviewFailed: 'ChangeReviewFailed',
  /** A run to notify about is missing, or has not finished: the notification is not sent. */
  runNotFound: 'RunNotFound',
  runNotFinished: 'RunNotFinished',
  /** A continued plan run's carried outcomes do not match its tests (a bug: retrying would not fix it). */
  carriedStateMismatch: 'CarriedStateMismatch',
  /** The project's daily LLM budget is spent: new LLM work is refused until it is raised or the day ends. */
  llmBudgetExceeded: 'LlmBudgetExceeded',
} as const;

export const permanentFailureTypes: string[] = [
  failureTypes.notFound,
  failureTypes.invalid,
  failureTypes.nothingToRun,
  failureTypes.conflict,
  failureTypes.llmNotConfigured,
  failureTypes.llmUnavailable,
  failureTypes.badDefinition,
  failureTypes.noDeviceFarm,
  failureTypes.llmBudgetExceeded,
];

/**
 * What an error outside the replay says about a test: it cannot run as defined, the application is down, or
 * Proctor failed. Shared by the testExecution workflow and the runPlanTest activity, which see the same failures.
 */
export function failureKindOf(err: unknown): FailureKind {
  for (let current = err; current instanceof Error; current = current.cause) {
    if (current instanceof ApplicationFailure) {
      if (current.type === failureTypes.badDefinition || current.type === failureTypes.notFound) return 'test-definition';
      if (current.type === failureTypes.unreachable) return 'environment';
    }
  }
  return 'infrastructure';
}

// --- systemCheck -------------------------------------------------------------------------------------------------

export interface SystemCheckInput {
  /** Echoed back, so a caller can tell its own run from another. */
  nonce: string;
}

export interface SystemCheckResult {
  nonce: string;
  databaseOk: boolean;
  workerIdentity: string;
}

// --- burnIn ------------------------------------------------------------------------------------------------------

export interface BurnInInput {
  projectId: string;
  testCaseId: string;
  /** Record on this URL instead of the application's environment: a change review burns new tests in on the preview. */
  environmentUrl?: string;
}

/** recordSteps: `resume` records again after a verifying replay failed, from its failing step on (issue 32). */
export interface RecordStepsInput extends BurnInInput {
  resume?: { steps: Step[]; failure: FailedReplay };
}

/** verifyRecording: the steps the agent recorded, replayed in a fresh browser before they are saved. */
export interface VerifyRecordingInput extends BurnInInput {
  steps: Step[];
}

export interface BurnInResult {
  status: 'COMPLETED' | 'FAILED';
  failureReason?: string;
  stepCount: number;
  /** COMPLETED: the parts of the goal the agent said it could not verify. */
  notCovered?: string[];
}

/** What a finished burn-in tells the burn-ins waiting for it. */
export interface DependencyRecorded {
  testCaseId: string;
  status: 'COMPLETED' | 'FAILED';
  /** Why it failed, for the dependent's own failure reason. */
  failureReason?: string;
}

/** Sent to a dependent's burn-in (`burn-in:<id>`) when one of its dependencies has recorded its steps or failed. */
export const dependencyRecordedSignal = defineSignal<[DependencyRecorded]>('dependencyRecorded');

export interface BurnInProgress {
  /** `reading-dependencies` until the stored statuses are read, so `waitingFor` is never empty by mistake. */
  phase: 'reading-dependencies' | 'waiting-for-dependencies' | 'recording' | 'verifying' | 'done';
  /** Dependencies not yet COMPLETED, while waiting. */
  waitingFor: string[];
}

/** Where a burn-in is: an operator (or a test) sees what it waits for without reading its history. */
export const burnInProgressQuery = defineQuery<BurnInProgress>('burnInProgress');

// --- planRun / testExecution -------------------------------------------------------------------------------------

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
  /** A mobile build to install instead of opening a URL. */
  build?: MobileBuildRef | null;
  /** The test's device preset as browser-context settings; null: the application's default. */
  device: DeviceSettings | null;
  /** Blob key of the resume-from dependency's browser state: the test starts where that one ended. */
  stateKey?: string;
  /** Dependents resume from this test: after it passes, store its final browser state under this blob key. */
  captureStateKey?: string;
  heal: boolean;
  /**
   * Run a failed test again up to this many times (the project's `retries`, read with the run's plan); a pass on
   * a retry is PASSED and flaky. Absent (a run started before retries existed): never.
   */
  retries?: number;
}

/**
 * A plan run's test as the run hands it to its `runPlanTests` activity: what the run's graph knows. The activity
 * reads the rest (URL, build, device) from the test's row, so a batch's input carries no settings.
 */
export type PlanTestRef = Omit<TestExecutionInput, 'baseUrl' | 'build' | 'device'>;

/** What the test's row adds to its reference (src/db/queries/run-progress.ts `planTestSettings`). */
export type PlanTestSettings = Pick<TestExecutionInput, 'runTestCaseId' | 'baseUrl' | 'build' | 'device'>;

/** A `runPlanTests` input entry is a reference when it has no `baseUrl` (runs from before references carry settings). */
export function isPlanTestRef(test: TestExecutionInput | PlanTestRef): test is PlanTestRef {
  return !('baseUrl' in test);
}

export interface MobileBuildRef {
  shortId: string;
  platform: 'ios' | 'android';
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

export const chatTurnWorkflowId = (chatShortId: string, turn: number) => `chat:${chatShortId}:turn:${turn}`;

// ---- changeReview: a change review is a conversation of its own (`chat:<shortId>`) --------------------------------
// Started by POST /v1/chat/change-review and, as a child, by mergeRequestReview. The diff and the request's details
// live in the database (a diff may be megabytes); the workflow carries ids only.

export interface ChangeReviewInput {
  chatId: string;
  chatShortId: string;
  projectId: string;
  /** The change_reviews row holding mode, source, context, overrides and (raw mode) the diff. */
  changeReviewId: string;
  /** The assistant message that shows progress (PARTIAL) and then the verdict (COMPLETED). */
  assistantMessageId: string;
}

export interface ChangeReviewTestResult {
  testCaseId: string;
  name: string;
  origin: 'new' | 'existing';
  /** A new test whose burn-in failed never ran: NOT_RUN with the reason in `detail`. */
  result: 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'NOT_RUN';
  detail?: string;
  url: string;
  /** What its run reported changed on the elements its steps used; a regression forbids `Approved`. */
  changes?: StepChange[];
  /** Quarantined: it ran and reports, but fails nothing and verifies nothing. */
  quarantined?: boolean;
  /** Parts of its goal its burn-in could not verify: the review does not count them as tested. */
  notCovered?: string[];
  /** Its quality signals on the preview against its latest run on the base environment (absent: no baseline). */
  quality?: QualityDelta & { newCount: number; fixedCount: number };
}

export interface ChangeReviewResult {
  verdict: ReviewVerdict;
  summary: string;
  /** The assistant's reply (markdown): verdict, summary, results table, evaluation details. Also the MR note. */
  body: string;
  tests: ChangeReviewTestResult[];
  runShortId?: string;
  /** The conversation's dashboard URL. */
  url: string;
  source: 'api' | GitProviderId;
}

/** Where a review is (`loading`, `selecting`, `creating-tests`, `running`, `verdict`, `done`) and the follow-up turns waiting for it. */
export const changeReviewStateQuery = defineQuery<{ phase: string; followUps: number[] }>('changeReviewState');

// ---- mergeRequestReview: one entity workflow per merge request (`mr:<provider>:<repo>:<number>`) ----------------
// Every webhook delivery about the merge request is a signal (signal-with-start); the workflow decides when a
// review runs (a `changeReview` child) and posts the comments through activities.

/** What a webhook delivery told about a merge request, already parsed and verified by the API. */
export type MergeRequestEvent =
  | {
      type: 'opened' | 'updated' | 'reopened' | 'ready_for_review' | 'converted_to_draft' | 'closed';
      deliveryId: string;
      head: MergeRequestHead;
    }
  /** A deployment of `sha` to `environment` succeeded and serves `url` (GitHub deployment_status, GitLab deployment). */
  | { type: 'deployment'; deliveryId: string; sha: string; environment: string; url: string }
  /** A comment mentioning the handle with a URL: a manual trigger, the URL being the deployment to test. */
  | { type: 'mention'; deliveryId: string; commentId: string; url: string; author: string; head?: MergeRequestHead };

export interface MergeRequestHead {
  sha: string;
  /** The merge request's web page (a change review in PR mode reads the change from it). */
  url: string;
  draft: boolean;
  sourceBranch: string;
  title: string;
}

export interface MergeRequestReviewInput {
  projectId: string;
  ref: MergeRequestRef;
  /** Set by the workflow itself when it continues as new. */
  carried?: MergeRequestReviewCarry;
}

/** What one run of the chain hands to the next: no review is running when it continues as new. */
export interface MergeRequestReviewCarry {
  head: MergeRequestHead | null;
  closed: boolean;
  deployments: Record<string, string>;
  manual: MergeRequestTrigger | null;
  /** The head commit whose review has completed (auto-run does not review it again). */
  reviewedSha: string | null;
  /** The head the waiting comment last described (null: none posted yet). */
  waitingShownFor: string | null;
  pending: MergeRequestEvent[];
  recentDeliveries: string[];
  reviews: number;
}

/** Why a review starts: the delivery that made it start keys its comments (each posted once). */
export interface MergeRequestTrigger {
  deliveryId: string;
  event: MergeRequestEvent['type'];
  /** A manual trigger's URL: the deployment under test for every mapped application. */
  url?: string;
  commentId?: string;
}

export interface MergeRequestReviewState {
  provider: GitProviderId;
  repository: string;
  number: number;
  state: 'starting' | 'waiting' | 'reviewing' | 'reviewed' | 'skipped-draft' | 'closed' | 'idle';
  headSha: string | null;
  /** Environments whose deployment of the head is awaited (or `a manual trigger`), while waiting. */
  waitingFor: string[];
  /** The change review's conversation, while reviewing and after. */
  reviewChatShortId: string | null;
  lastVerdict: ReviewVerdict | null;
  reviews: number;
}

export const mergeRequestEventSignal = defineSignal<[MergeRequestEvent]>('mergeRequestEvent');
export const mergeRequestReviewStateQuery = defineQuery<MergeRequestReviewState>('mergeRequestReviewState');

// --- scheduledPlanRun --------------------------------------------------------------------------------------------

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

// --- insertStep: "insert a step here" (`insert-step:<insertionId>`) -------------------------------------------------
// The request (position, description, the version it was asked of) is a step_insertions row; the workflow carries ids.

export interface InsertStepInput {
  projectId: string;
  testCaseId: string;
  insertionId: string;
}

export interface InsertStepResult {
  status: 'COMPLETED' | 'FAILED';
  /** COMPLETED: the new steps version and how many steps were recorded for the description. */
  version?: number;
  insertedSteps?: number;
  failureReason?: string;
}
