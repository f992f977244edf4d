// What the workflows' contracts share, for the API, the worker and the workflows: the task queue, the workflow ids
// (one table, so ids that share a prefix — `chat:` for chats and change reviews, `run:` for a run and its tests —
// are seen together), the registered workflows and their type names, and the failure types activities throw.
// Each workflow's own input, result, signals and queries live beside it in workflows/<name>-contract.ts. No Node
// imports here (it is bundled into the workflow sandbox).
import { ApplicationFailure } from '@temporalio/workflow';
import type { FailureKind } from '../src/domain/verdicts.js';
import type { BurnInInput, BurnInResult } from './burn-in-contract.js';
import type { ChangeReviewInput, ChangeReviewResult } from './change-review-contract.js';
import type { ChatConversationInput, ChatTurnInput, ChatTurnResult } from './chat-contract.js';
import type { DiscoveryInput, DiscoveryResult } from './discovery-contract.js';
import type { GitSyncInput, GitSyncResult } from './git-sync-contract.js';
import type { InsertStepInput, InsertStepResult } from './insert-step-contract.js';
import type { MergeRequestReviewInput } from './merge-request-review-contract.js';
import type { PlanRunInput, PlanRunResult } from './plan-run-contract.js';
import type { ScheduledDiscoveryInput, ScheduledDiscoveryResult } from './scheduled-discovery-contract.js';
import type { ScheduledPlanRunInput, ScheduledPlanRunResult } from './scheduled-plan-run-contract.js';
import type { SystemCheckInput, SystemCheckResult } from './system-check-contract.js';
import type { TestExecutionInput, TestExecutionResult } from './test-execution-contract.js';

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
  discovery: (discoveryShortId: string) => `discovery:${discoveryShortId}`,
  /** One test's file, per steps version (a retried start is the same request); or the folder at one pushed commit. */
  gitSyncPropose: (testCaseId: string, stepsVersion: number) => `git-sync:${testCaseId}:v${stepsVersion}`,
  gitSyncPull: (projectId: string, ref: string) => `git-sync:${projectId}:pull:${ref}`,
};

/**
 * The workflows the worker registers, by type name, and what each takes and returns. Declared here, not derived
 * from the implementations, so the contracts stay leaves: workflows/index.ts checks its exports against it.
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
  discovery: (input: DiscoveryInput) => Promise<DiscoveryResult>;
  scheduledDiscovery: (input: ScheduledDiscoveryInput) => Promise<ScheduledDiscoveryResult>;
  gitSync: (input: GitSyncInput) => Promise<GitSyncResult>;
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
  discovery: 'discovery',
  scheduledDiscovery: 'scheduledDiscovery',
  gitSync: 'gitSync',
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
      if (current.type === failureTypes.badDefinition || current.type === failureTypes.notFound)
        return 'test-definition';
      if (current.type === failureTypes.unreachable) return 'environment';
    }
  }
  return 'infrastructure';
}
