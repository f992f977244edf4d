// The workflow bundle's entry: every workflow the worker can run.
export { systemCheck } from './systemCheck.js';
export { burnIn } from './burnIn.js';
export { planRun } from './planRun.js';
export { testExecution } from './testExecution.js';
export { scheduledPlanRun } from './scheduledPlanRun.js';
export { chatConversation } from './chatConversation.js';
export { chatTurn } from './chatTurn.js';
export { changeReview } from './changeReview.js';
