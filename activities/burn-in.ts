import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Page } from 'playwright-core';
import type { ActivityDeps } from './deps.js';
import { proposeInGit } from './git-sync.js';
import { environmentAccess } from './environment-access.js';
import { cancellationSignal, heartbeat, withHeartbeats } from './heartbeat.js';
import { liveView, type LiveJob } from './live-view.js';
import { waitForFreshTotp } from './fresh-totp.js';
import { firstLine } from '../src/browser/steps/actions.js';
import { replaySteps } from '../src/browser/replay/replay.js';
import { captureBrowserState } from '../src/browser/context/state.js';
import { RunValues } from '../src/domain/run-values.js';
import { adoptInbox, sameInbox, withInbox } from './inbox.js';
import { projectStepOptions } from './step-options.js';
import { visualFor } from './visual.js';
import {
  generationStatuses,
  loadExecutionContext,
  saveGenerationResult,
  type ExecutionContext,
} from '../src/db/queries/execution.js';
import type { BrowserState, Step } from '../src/domain/steps.js';
import { runAgent } from '../src/llm/agent.js';
import { burnInCallsPerStep } from '../src/metrics.js';
import { LlmUnavailableError } from '../src/llm/client.js';
import { llmFor } from './llm-usage.js';
import { agentTask } from './agent-task.js';
import {
  ApplicationUnreachableError,
  BadTestDefinitionError,
  GoneError,
  LlmGaveUpError,
  LlmNotConfiguredError,
  NotFoundError,
} from '../src/domain/errors.js';
import { findDependents } from '../src/db/queries/test-cases.js';
import { signalDependencyRecorded } from '../src/temporal/lifecycle.js';
import type { BurnInInput, DependencyRecorded, RecordStepsInput } from '../workflows/burn-in-contract.js';
import { notReplayingReason, replayFailureNote, type RecordingCheck } from '../src/domain/recording-check.js';
import { SignalCollector } from '../src/browser/quality/signals.js';
import { projectScanCache } from '../src/services/a11y-scans.js';
import { recordBurnInSignals, signalIgnoreUrls } from '../src/services/issue-ingest.js';

export interface RecordStepsResult {
  status: 'COMPLETED' | 'FAILED';
  steps: Step[];
  failureReason?: string;
  /** What the agent said it could not verify (kept on the test case). */
  notCovered?: string[];
  llmCalls: number;
  promptTokens: number[];
  /** Of each call's prompt tokens, those the endpoint read from its prompt cache (absent in older histories). */
  cachedTokens?: number[];
}

/** This burn-in's execution, the same for every attempt of its activity (a fresh id when called outside Temporal). */
function burnInExecution(): string {
  let execution: { workflowId: string; runId: string } | undefined;
  try {
    execution = Context.current().info.workflowExecution;
  } catch {
    // not in an activity
  }
  return execution ? `${execution.workflowId}/${execution.runId}` : `direct/${randomUUID()}`;
}

export function requireEnvironmentUrl(ctx: ExecutionContext): string {
  if (!ctx.environmentUrl) {
    throw new BadTestDefinitionError(
      `application ${ctx.application.name} has no environment with a URL: create one (POST /v1/applications/${ctx.application.shortId}/environments)`,
    );
  }
  return ctx.environmentUrl;
}

/**
 * Replays the resume-from chain (root first) in one context and returns where it ended, with cookies,
 * localStorage and sessionStorage: the state a dependent starts from.
 */
export async function dependencyState(
  deps: ActivityDeps,
  projectId: string,
  resumeFromId: string,
  baseUrl: string,
): Promise<BrowserState> {
  const chain: ExecutionContext[] = [];
  for (let id: string | null = resumeFromId; id;) {
    const dep = await loadExecutionContext(deps.db, projectId, id);
    if (!dep) throw new GoneError(`resume-from dependency ${id} no longer exists`);
    if (!dep.testCase.steps?.length)
      throw new BadTestDefinitionError(`resume-from dependency "${dep.testCase.name}" has no recorded steps`);
    if (chain.some((c) => c.testCase.id === dep.testCase.id))
      throw new BadTestDefinitionError('resume-from dependencies form a cycle');
    chain.unshift(dep);
    id = dep.testCase.resumeFromId;
  }
  const access = await environmentAccess(deps, chain.at(-1)!.application.id, baseUrl, new RunValues());
  return deps.browsers.withContext(
    { ...chain.at(-1)!.device, access, projectId, signal: cancellationSignal() },
    async ({ context, page }) => {
      let startUrl = baseUrl;
      const options = projectStepOptions(deps, projectId);
      let values: RunValues | undefined;
      for (const dep of chain) {
        values = sameInbox(new RunValues(dep), values);
        const visual = visualFor(deps, projectId, dep, baseUrl, 'compare');
        const result = await replaySteps(page, dep.testCase.steps!, { ...options, visual, startUrl, baseUrl, values });
        if (result.status === 'FAILED')
          throw new BadTestDefinitionError(
            `resume-from dependency "${dep.testCase.name}" failed to replay: ${result.error}`,
          );
        startUrl = page.url();
        heartbeat({ phase: 'dependency', testCase: dep.testCase.name });
      }
      const state = await captureBrowserState(context, page);
      return values ? withInbox(state, values) : state;
    },
  );
}

/**
 * Where a browser session of a test case starts: the state its resume-from chain ends in (none without one), run
 * values of its own that take over that chain's inbox, and the environment's access filled in from those values.
 */
export async function sessionStart(deps: ActivityDeps, projectId: string, ctx: ExecutionContext, baseUrl: string) {
  const state = ctx.testCase.resumeFromId
    ? await dependencyState(deps, projectId, ctx.testCase.resumeFromId, baseUrl)
    : undefined;
  const values = adoptInbox(new RunValues(ctx), state);
  const access = await environmentAccess(deps, ctx.application.id, baseUrl, values);
  return { state, values, access };
}

export function createBurnInActivities(deps: ActivityDeps) {
  return {
    async burnInDependencies(input: BurnInInput): Promise<{ exists: boolean; statuses: Record<string, string> }> {
      const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
      if (!ctx) return { exists: false, statuses: {} };
      const ids = [
        ...new Set([...(ctx.testCase.resumeFromId ? [ctx.testCase.resumeFromId] : []), ...ctx.testCase.waitForIds]),
      ];
      return { exists: true, statuses: await generationStatuses(deps.db, input.projectId, ids) };
    },

    /** The agent explores the application to reach the goal and records steps. One browser session. */
    async recordSteps(input: RecordStepsInput): Promise<RecordStepsResult> {
      const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
      if (!ctx) throw new NotFoundError(`test case ${input.testCaseId}`);
      if (!deps.llm) throw new LlmNotConfiguredError();
      const llm = llmFor(deps, deps.llm, {
        projectId: input.projectId,
        purpose: 'burn_in',
        testCaseId: ctx.testCase.id,
      });
      const baseUrl = input.environmentUrl ?? requireEnvironmentUrl(ctx);
      // Recording again after a verifying replay: the kept steps must not type the TOTP code that replay typed.
      if (input.resume) await waitForFreshTotp(ctx, input.resume.steps);
      const { state, values, access } = await sessionStart(deps, input.projectId, ctx, baseUrl);
      return withHeartbeats((progress) =>
        deps.browsers.withContext(
          { ...ctx.device, state, access, projectId: input.projectId, signal: cancellationSignal() },
          liveView(
            deps,
            {
              projectId: input.projectId,
              kind: 'burn_in',
              subjectId: ctx.testCase.id,
              secrets: () => Object.values(values.secrets()),
            },
            async ({ page, live }: LiveJob) => {
              const startUrl = state?.url ?? baseUrl;
              const collector = new SignalCollector(page, {
                ignoreUrls: await signalIgnoreUrls(deps, input.projectId),
                scanCache: projectScanCache(deps, input.projectId),
              });
              const compare = visualFor(deps, input.projectId, ctx, baseUrl, 'compare');
              const options = { ...projectStepOptions(deps, input.projectId), visual: compare };
              const resume = input.resume;
              if (resume && resume.steps.length > 0) {
                // Recording again after a verifying replay failed: the steps before its failing step replay here first
                // (replaySteps opens the start page), so the agent goes on from where they really end.
                const replayed = await replaySteps(page, resume.steps, { ...options, startUrl, baseUrl, values });
                if (replayed.status === 'FAILED')
                  return {
                    status: 'FAILED',
                    steps: [],
                    failureReason: notReplayingReason({
                      failedStepIndex: replayed.failedStepIndex ?? -1,
                      error: replayed.error ?? 'unknown error',
                    }),
                    llmCalls: 0,
                    promptTokens: [],
                  };
              } else {
                await openStartPage(page, startUrl);
              }
              try {
                const result = await runAgent(
                  page,
                  await agentTask(deps, input.projectId, ctx, values, {
                    goal: ctx.testCase.goal ?? ctx.testCase.name,
                    expectedResult: ctx.testCase.expectedResult,
                    scenario: ctx.scenario,
                  }),
                  {
                    ...options,
                    visual: visualFor(deps, input.projectId, ctx, baseUrl, 'record'),
                    llm,
                    baseUrl,
                    values,
                    maxSteps: deps.maxAgentSteps ?? 30,
                    ...(resume && { resume: { steps: resume.steps, note: replayFailureNote(resume.failure) } }),
                    onProgress: (p) => {
                      progress(p);
                      collector.afterStep(p.step - 1);
                      live.step(p);
                    },
                  },
                );
                // The steps it recorded itself (not those it resumed after); none recorded: nothing to divide.
                const recorded = result.steps.length - (resume?.steps.length ?? 0);
                if (recorded > 0)
                  burnInCallsPerStep.observe(
                    { result: result.status === 'COMPLETED' ? 'completed' : 'failed' },
                    result.llmCalls / recorded,
                  );
                const signals = await collector.finish();
                // On a preview (a change review's burn-in) the signals are not the application's issues.
                if (!input.environmentUrl)
                  await recordBurnInSignals(deps, {
                    projectId: input.projectId,
                    testCaseId: ctx.testCase.id,
                    burnIn: burnInExecution(),
                    signals,
                  });
                return {
                  status: result.status,
                  steps: result.steps,
                  failureReason: result.failureReason,
                  notCovered: result.notCovered,
                  llmCalls: result.llmCalls,
                  promptTokens: result.promptTokens,
                  cachedTokens: result.cachedTokens,
                };
              } catch (err) {
                if (err instanceof LlmUnavailableError) throw new LlmGaveUpError(err.message);
                throw err;
              }
            },
          ),
        ),
      );
    },

    /**
     * Signals the burn-ins of the test cases that depend on this one, after its result is stored (a dependent not
     * running yet reads that stored result when it starts). Returns how many were signalled.
     */
    async notifyDependents(input: DependencyRecorded & { projectId: string }): Promise<number> {
      const dependents = await findDependents(deps.db, input.projectId, input.testCaseId);
      if (dependents.length === 0) return 0;
      const { client, info } = Context.current();
      return signalDependencyRecorded(
        { taskQueue: info.taskQueue, get: async () => client },
        dependents.map((d) => d.id),
        { testCaseId: input.testCaseId, status: input.status, failureReason: input.failureReason },
      );
    },

    async saveBurnInResult(input: {
      testCaseId: string;
      status: 'COMPLETED' | 'FAILED';
      steps?: Step[];
      failureReason?: string;
      notCovered?: string[];
      recordingCheck?: RecordingCheck;
    }): Promise<void> {
      const check = input.recordingCheck && { recordingCheck: input.recordingCheck };
      await saveGenerationResult(
        deps.db,
        input.testCaseId,
        input.status === 'COMPLETED'
          ? { status: 'COMPLETED', steps: input.steps ?? [], notCovered: input.notCovered ?? [], ...check }
          : { status: 'FAILED', failureReason: input.failureReason ?? 'unknown failure', ...check },
      );
      // New steps are a change on Proctor's side: proposed in Git when the project syncs (git-sync-requests.ts).
      if (input.status === 'COMPLETED') await proposeInGit(deps, input.testCaseId);
    },
  };
}

/** Opens where the recording starts; an application that does not answer is retried by the workflow's policy (a deployment may be restarting). */
export async function openStartPage(page: Page, startUrl: string): Promise<void> {
  try {
    await page.goto(startUrl, { waitUntil: 'domcontentloaded', timeout: 30_000 });
  } catch (err) {
    throw new ApplicationUnreachableError(`application unreachable at ${startUrl}: ${firstLine(err)}`);
  }
}
