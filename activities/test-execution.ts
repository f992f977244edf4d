import { ApplicationFailure } from '@temporalio/common';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActivityDeps } from './deps.js';
import { requireEnvironmentUrl } from './burn-in.js';
import { failureTypes } from '../workflows/shared.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import { replaySteps, type HealedStep } from '../src/browser/replay.js';
import { captureBrowserState } from '../src/browser/state.js';
import { loadExecutionContext, saveHealedSteps, type DeviceSettings } from '../src/db/queries/execution.js';
import type { BrowserState } from '../src/domain/steps.js';
import { createLlmHealer } from '../src/llm/heal.js';

export interface ExecuteTestInput {
  projectId: string;
  testCaseId: string;
  /** Prefix of artifact keys, e.g. `runs/run_abc/<testCaseId>`. */
  artifactPrefix: string;
  /** The environment URL for this run; the application's default environment when absent. */
  baseUrl?: string;
  device?: DeviceSettings | null;
  /** Browser state of a resume-from dependency: the test starts where it ended. */
  state?: BrowserState;
  /** Let the LLM pick a moved element when a locator no longer matches (needs an LLM). */
  heal?: boolean;
  /** Return the final browser state for dependents. */
  captureState?: boolean;
}

export interface ExecuteTestResult {
  status: 'PASSED' | 'FAILED';
  failedStepIndex?: number;
  error?: string;
  healed: HealedStep[];
  /** The steps version stored after healing, if it healed. */
  stepsVersion: number;
  screenshotKey?: string;
  traceKey?: string;
  durationMs: number;
  llmCalls: number;
  state?: BrowserState;
}

export function createTestExecutionActivities(deps: ActivityDeps) {
  return {
    /** Replays the recorded steps in a fresh context: no LLM unless a locator must be healed. */
    async executeTest(input: ExecuteTestInput): Promise<ExecuteTestResult> {
      const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
      if (!ctx) throw ApplicationFailure.create({ message: `test case ${input.testCaseId} not found`, type: failureTypes.notFound, nonRetryable: true });
      const steps = ctx.testCase.steps;
      if (!steps?.length) {
        throw ApplicationFailure.create({ message: `test case "${ctx.testCase.name}" has no recorded steps`, type: failureTypes.badDefinition, nonRetryable: true });
      }
      const baseUrl = input.baseUrl ?? requireEnvironmentUrl(ctx);
      const secrets = Object.fromEntries(ctx.secretNames.map((n) => [n, ctx.configs[n]!]));
      let llmCalls = 0;
      const heal = input.heal && deps.llm ? createLlmHealer(deps.llm, secrets, () => llmCalls++) : undefined;
      const traceDir = await mkdtemp(join(tmpdir(), 'proctor-trace-'));

      try {
        return await withHeartbeats((progress) => deps.browsers.withContext({ ...(input.device ?? ctx.device), state: input.state, signal: cancellationSignal() }, async ({ context, page }) => {
          await context.tracing.start({ screenshots: true, snapshots: true, title: ctx.testCase.name });
          const result = await replaySteps(page, steps, {
            startUrl: input.state?.url ?? baseUrl,
            baseUrl,
            configs: ctx.configs,
            timeoutMs: deps.stepTimeoutMs ?? 10_000,
            heal,
            onStep: (index, step) => progress({ step: index + 1, of: steps.length, action: step.action }),
          });

          let screenshotKey: string | undefined;
          if (result.status === 'FAILED') {
            screenshotKey = `${input.artifactPrefix}/failure.png`;
            const png = await page.screenshot({ fullPage: true, timeout: 10_000 }).catch(() => undefined);
            if (png) await deps.blobs.put(screenshotKey, png, 'image/png');
            else screenshotKey = undefined;
          }
          const state = input.captureState && result.status === 'PASSED' ? await captureBrowserState(context, page) : undefined;
          const tracePath = join(traceDir, 'trace.zip');
          await context.tracing.stop({ path: tracePath });
          const traceKey = `${input.artifactPrefix}/trace.zip`;
          await deps.blobs.put(traceKey, await readFile(tracePath), 'application/zip');

          let stepsVersion = ctx.testCase.stepsVersion;
          if (result.healed.length > 0 && result.status === 'PASSED') {
            // A healed run that passed proves the new locators: keep them as the next version of the steps.
            stepsVersion = (await saveHealedSteps(deps.db, ctx.testCase.id, ctx.testCase.stepsVersion, result.steps)) ?? stepsVersion;
            deps.logger.info('steps healed', { testCaseId: ctx.testCase.id, healed: result.healed, stepsVersion });
          }
          return {
            status: result.status,
            failedStepIndex: result.failedStepIndex,
            error: result.error,
            healed: result.healed,
            stepsVersion,
            screenshotKey,
            traceKey,
            durationMs: result.durationMs,
            llmCalls,
            state,
          };
        }));
      } finally {
        await rm(traceDir, { recursive: true, force: true });
      }
    },
  };
}
