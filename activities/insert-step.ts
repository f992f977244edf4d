import type { ActivityDeps } from './deps.js';
import { openStartPage, requireEnvironmentUrl, sessionStart } from './burn-in.js';
import { replayInFreshContext } from './burn-in-verify.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import { projectStepOptions } from './step-options.js';
import { llmFor } from './llm-usage.js';
import { replaySteps } from '../src/browser/replay/replay.js';
import { loadExecutionContext } from '../src/db/queries/execution.js';
import { getStepInsertion } from '../src/db/queries/step-insertions.js';
import { LlmGaveUpError, LlmNotConfiguredError, NotFoundError } from '../src/domain/errors.js';
import type { Step } from '../src/domain/steps.js';
import { runAgent } from '../src/llm/agent.js';
import { LlmUnavailableError } from '../src/llm/client.js';
import { agentTask } from './agent-task.js';
import { failStepInsertion, saveStepInsertion } from '../src/services/step-insert.js';
import { insertionInstructions } from '../src/services/step-insert-task.js';
import type { InsertStepInput } from '../workflows/insert-step-contract.js';

export type RecordInsertedStepsResult =
  { status: 'RECORDED'; steps: Step[] } | { status: 'FAILED'; failureReason: string };

/** An inserted step is one thing a person described: a few actions at most, not a burn-in's budget. */
const maxInsertActions = 15;

export function createInsertStepActivities(deps: ActivityDeps) {
  return {
    /**
     * One browser session: the state the test starts from (its resume-from dependency's end), the test's steps
     * before the position replayed in that page, then the agent recording the described step from where they left it.
     */
    async recordInsertedSteps(input: InsertStepInput): Promise<RecordInsertedStepsResult> {
      const insertion = await getStepInsertion(deps.db, input.insertionId);
      if (!insertion) throw new NotFoundError(`step insertion ${input.insertionId}`);
      const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
      if (!ctx?.testCase.steps) throw new NotFoundError(`test case ${input.testCaseId}`);
      if (ctx.testCase.stepsVersion !== insertion.based_on_version) {
        return {
          status: 'FAILED',
          failureReason: `the steps changed before recording started (asked of version ${insertion.based_on_version}, now ${ctx.testCase.stepsVersion}): insert again`,
        };
      }
      if (!deps.llm) throw new LlmNotConfiguredError();
      const llm = llmFor(deps, deps.llm, {
        projectId: input.projectId,
        purpose: 'burn_in',
        testCaseId: ctx.testCase.id,
      });
      const baseUrl = requireEnvironmentUrl(ctx);
      const before = ctx.testCase.steps.slice(0, insertion.position);
      const { state, values, access } = await sessionStart(deps, input.projectId, ctx, baseUrl);
      const { inbox, projectFiles, timeoutMs } = projectStepOptions(deps, input.projectId);

      const recorded = await withHeartbeats((progress) =>
        deps.browsers.withContext(
          { ...ctx.device, state, access, projectId: input.projectId, signal: cancellationSignal() },
          async ({ page }) => {
            const startUrl = state?.url ?? baseUrl;
            if (before.length > 0) {
              // replaySteps opens the start page itself; a step before the position that fails ends it here.
              const replayed = await replaySteps(page, before, {
                startUrl,
                baseUrl,
                values,
                inbox,
                projectFiles,
                timeoutMs,
                onStep: (index) => progress({ phase: 'replaying', step: index + 1 }),
              });
              if (replayed.status === 'FAILED') {
                return {
                  status: 'FAILED',
                  failureReason: `the steps before position ${insertion.position + 1} did not replay, so nothing was recorded: ${replayed.error}`,
                } as const;
              }
            } else {
              await openStartPage(page, startUrl);
            }
            try {
              const result = await runAgent(
                page,
                await agentTask(deps, input.projectId, ctx, values, {
                  goal: insertion.description,
                  expectedResult: null,
                  scenario: insertionInstructions(ctx.scenario, ctx.testCase.steps!, insertion.position),
                }),
                {
                  llm,
                  baseUrl,
                  values,
                  inbox,
                  projectFiles,
                  timeoutMs,
                  maxSteps: Math.min(deps.maxAgentSteps ?? 30, maxInsertActions),
                  onProgress: (p) => progress({ phase: 'recording', ...p }),
                },
              );
              if (result.status === 'FAILED')
                return {
                  status: 'FAILED',
                  failureReason: result.failureReason ?? 'the agent could not record the step',
                } as const;
              return { status: 'RECORDED', steps: result.steps } as const;
            } catch (err) {
              if (err instanceof LlmUnavailableError) throw new LlmGaveUpError(err.message);
              throw err;
            }
          },
        ),
      );
      if (recorded.status === 'FAILED') return recorded;
      // As a burn-in's recording (issue 32): the steps through the inserted ones must replay in a fresh browser,
      // after the recording's context closed, before they are saved. The steps after them are the test's own.
      const check = await replayInFreshContext(deps, {
        projectId: input.projectId,
        testCaseId: input.testCaseId,
        steps: [...before, ...recorded.steps],
      });
      if (check.status === 'FAILED')
        return {
          status: 'FAILED',
          failureReason: `the recorded step does not replay, so nothing was saved: ${check.error}`,
        };
      return recorded;
    },

    async saveStepInsertion(input: { insertionId: string; steps: Step[] }) {
      return saveStepInsertion(deps, input);
    },

    async failStepInsertion(input: { insertionId: string; failureReason: string }) {
      return failStepInsertion(deps, input);
    },
  };
}
