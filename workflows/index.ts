// The workflow bundle's entry: every workflow the worker can run.
import type { Workflows } from './shared.js';
import { systemCheck } from './systemCheck.js';
import { burnIn } from './burnIn.js';
import { planRun } from './planRun.js';
import { testExecution } from './testExecution.js';
import { scheduledPlanRun } from './scheduledPlanRun.js';
import { chatConversation } from './chatConversation.js';
import { chatTurn } from './chatTurn.js';
import { changeReview } from './changeReview.js';
import { mergeRequestReview } from './mergeRequestReview.js';
import { insertStep } from './insertStep.js';
import { discovery } from './discovery.js';
import { scheduledDiscovery } from './scheduledDiscovery.js';
import { gitSync } from './gitSync.js';

export {
  systemCheck,
  burnIn,
  planRun,
  testExecution,
  scheduledPlanRun,
  chatConversation,
  chatTurn,
  changeReview,
  mergeRequestReview,
  insertStep,
  discovery,
  scheduledDiscovery,
  gitSync,
};

// The contract check: tsc fails here when a workflow is missing, extra, or takes or returns other than its
// declaration in shared.ts says (the API and the lifecycle helpers type their calls by that declaration).
const _implementations = {
  systemCheck,
  burnIn,
  planRun,
  testExecution,
  scheduledPlanRun,
  chatConversation,
  chatTurn,
  changeReview,
  mergeRequestReview,
  insertStep,
  discovery,
  scheduledDiscovery,
  gitSync,
} satisfies Workflows;
