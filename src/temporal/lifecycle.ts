// Callers start and signal workflows only through these helpers, with business ids: starting twice is
// harmless. Each is typed by the workflow's declared signature (`Workflows` in workflows/shared.ts, which
// workflows/index.ts satisfies), and type names come from `workflowTypes`, which tsc checks against it.
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import {
  dependencyRecordedSignal,
  type BurnInInput,
  type DependencyRecorded,
} from '../../workflows/burn-in-contract.js';
import { workflowIds, workflowTypes, type Workflows, type WorkflowType } from '../../workflows/shared.js';
import type { DiscoveryInput } from '../../workflows/discovery-contract.js';
import type { InsertStepInput } from '../../workflows/insert-step-contract.js';
import type { PlanRunInput } from '../../workflows/plan-run-contract.js';
import { searchAttributePairs, type ProctorAttributes } from '../../workflows/search-attributes-contract.js';
import { searchAttributesRegistered } from './search-attributes.js';

/** Where a helper gets its client and task queue: the API's lazy provider, or an activity's own client. */
export interface TemporalTarget {
  readonly taskQueue: string;
  get(): Promise<Client>;
}

export interface StartOptions<T extends WorkflowType> {
  workflowId: string;
  args: Parameters<Workflows[T]>;
  /** Shown in the Temporal UI's workflow list, so an operator sees what this is without opening it. */
  summary?: string;
  /** Markdown shown on the workflow's page in the Temporal UI (what it is for, where to look). */
  details?: string;
  /**
   * Search attributes to start with (workflows/search-attributes-contract.ts), set only where the namespace has
   * them registered: the workflow upserts its result only when its start set them.
   */
  attributes?: ProctorAttributes;
}

/** The start option that sets `attributes`, or none when the namespace lacks them (or nothing is known). */
async function typedSearchAttributes(
  client: Client,
  attributes: ProctorAttributes | undefined,
): Promise<{ typedSearchAttributes?: ReturnType<typeof searchAttributePairs> }> {
  const pairs = searchAttributePairs(attributes ?? {});
  if (pairs.length === 0 || !(await searchAttributesRegistered(client))) return {};
  return { typedSearchAttributes: pairs };
}

/**
 * Starts a workflow by type with arguments typed by its function. A workflow already running under the id counts
 * as started (false is returned): the id is the business id, so a second start is the same request.
 */
export async function startWorkflow<T extends WorkflowType>(
  temporal: TemporalTarget,
  type: T,
  opts: StartOptions<T>,
): Promise<boolean> {
  const client = await temporal.get();
  try {
    await client.workflow.start<Workflows[T]>(workflowTypes[type], {
      taskQueue: temporal.taskQueue,
      workflowId: opts.workflowId,
      staticSummary: opts.summary,
      staticDetails: opts.details,
      ...(await typedSearchAttributes(client, opts.attributes)),
      args: opts.args,
    } as Parameters<typeof client.workflow.start<Workflows[T]>>[1]);
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}

/**
 * Signals the workflow under `workflowId`, starting it first when none runs (an entity workflow per conversation:
 * each message is a signal, the first one also starts it).
 */
export async function signalWithStart<T extends WorkflowType, SignalArgs extends unknown[]>(
  temporal: TemporalTarget,
  type: T,
  opts: StartOptions<T> & { signal: SignalDefinition<SignalArgs>; signalArgs: SignalArgs },
): Promise<WorkflowHandle<Workflows[T]>> {
  const client = await temporal.get();
  return client.workflow.signalWithStart<Workflows[T], SignalArgs>(workflowTypes[type], {
    taskQueue: temporal.taskQueue,
    workflowId: opts.workflowId,
    staticSummary: opts.summary,
    staticDetails: opts.details,
    ...(await typedSearchAttributes(client, opts.attributes)),
    args: opts.args,
    signal: opts.signal,
    signalArgs: opts.signalArgs,
    // The SDK's conditional option types do not resolve for a generic workflow; the signature above is the check.
  } as unknown as Parameters<typeof client.workflow.signalWithStart<Workflows[T], SignalArgs>>[1]);
}

/**
 * Starts the burn-in that records a test case's steps; a burn-in already running for it counts as started. Its
 * project and test case are search attributes; `attributes` adds what the caller knows (application, trigger).
 */
export async function startBurnIn(
  temporal: TemporalTarget,
  input: BurnInInput,
  summary?: string,
  attributes?: ProctorAttributes,
): Promise<void> {
  await startWorkflow(temporal, 'burnIn', {
    workflowId: workflowIds.burnIn(input.testCaseId),
    args: [input],
    summary,
    attributes: { project: input.projectId, testCase: input.testCaseId, ...attributes },
  });
}

/**
 * Starts the run's orchestration (`run:<shortId>`); a second start of the same run is a no-op. Its project and run
 * are search attributes; `attributes` adds the plan and the trigger.
 */
export async function startPlanRun(
  temporal: TemporalTarget,
  input: PlanRunInput,
  summary?: string,
  attributes?: ProctorAttributes,
): Promise<void> {
  await startWorkflow(temporal, 'planRun', {
    workflowId: workflowIds.planRun(input.runShortId),
    args: [input],
    summary,
    attributes: { project: input.projectId, run: input.runShortId, ...attributes },
  });
}

/** Starts the recording of a step a person described ("insert a step here"), under the insertion's id. */
export async function startInsertStep(
  temporal: TemporalTarget,
  input: InsertStepInput,
  summary?: string,
): Promise<void> {
  await startWorkflow(temporal, 'insertStep', {
    workflowId: workflowIds.insertStep(input.insertionId),
    args: [input],
    summary,
    attributes: { project: input.projectId, testCase: input.testCaseId },
  });
}

/** Starts a discovery (`discovery:<shortId>`); a second start of the same discovery is a no-op. */
export async function startDiscovery(
  temporal: TemporalTarget,
  input: DiscoveryInput,
  summary?: string,
  attributes?: ProctorAttributes,
): Promise<void> {
  await startWorkflow(temporal, 'discovery', {
    workflowId: workflowIds.discovery(input.discoveryShortId),
    args: [input],
    summary,
    attributes: { project: input.projectId, ...attributes },
  });
}

/** Asks a discovery to stop (it ends CANCELLED); false when none runs under its id. */
export function cancelDiscovery(temporal: TemporalTarget, discoveryShortId: string): Promise<boolean> {
  return cancelIfRunning(temporal, workflowIds.discovery(discoveryShortId));
}

/** Asks a burn-in to stop: its workflow stores the test case as FAILED ("the burn-in was cancelled"). */
export async function cancelBurnIn(temporal: TemporalTarget, testCaseId: string): Promise<void> {
  const client = await temporal.get();
  await client.workflow.getHandle(workflowIds.burnIn(testCaseId)).cancel();
}

/**
 * Cancels the workflow under `workflowId` if it runs; false when none does (it ended, its start was lost, or it was
 * terminated): a cancel request to a closed workflow is accepted by the server and changes nothing.
 */
async function cancelIfRunning(temporal: TemporalTarget, workflowId: string): Promise<boolean> {
  const handle = (await temporal.get()).workflow.getHandle(workflowId);
  try {
    if ((await handle.describe()).status.name !== 'RUNNING') return false;
    await handle.cancel();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** As `cancelBurnIn`, answering false when no burn-in workflow runs for the test case. */
export function cancelRunningBurnIn(temporal: TemporalTarget, testCaseId: string): Promise<boolean> {
  return cancelIfRunning(temporal, workflowIds.burnIn(testCaseId));
}

/** Asks an insertion's workflow to stop; false when none runs under its id. */
export function cancelInsertStep(temporal: TemporalTarget, insertionId: string): Promise<boolean> {
  return cancelIfRunning(temporal, workflowIds.insertStep(insertionId));
}

/** Asks a run to stop: running tests are cancelled (their browser contexts closed), pending ones never start. */
export async function cancelPlanRun(temporal: TemporalTarget, runShortId: string): Promise<void> {
  const client = await temporal.get();
  await client.workflow.getHandle(workflowIds.planRun(runShortId)).cancel();
}

/**
 * Tells the burn-ins of `dependentIds` that a dependency has recorded its steps (or failed). A dependent whose
 * burn-in is not running (finished, or not started yet) is skipped: it reads the stored status when it starts.
 */
export async function signalDependencyRecorded(
  temporal: TemporalTarget,
  dependentIds: string[],
  recorded: DependencyRecorded,
): Promise<number> {
  const client = await temporal.get();
  let delivered = 0;
  for (const id of dependentIds) {
    try {
      await client.workflow
        .getHandle<Workflows['burnIn']>(workflowIds.burnIn(id))
        .signal(dependencyRecordedSignal, recorded);
      delivered++;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
  return delivered;
}
