import { setTimeout as sleep } from 'node:timers/promises';
import type { ActivityDeps } from './deps.js';
import { dependencyState, requireEnvironmentUrl } from './burn-in.js';
import { environmentAccess } from './environment-access.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import { adoptInbox, inboxFor } from './inbox.js';
import { replaySteps } from '../src/browser/replay.js';
import { RunValues } from '../src/browser/values.js';
import { loadExecutionContext, type ExecutionContext } from '../src/db/queries/execution.js';
import type { Step } from '../src/domain/steps.js';
import { NotFoundError } from '../src/domain/errors.js';
import { msUntilFreshTotp } from '../src/domain/recording-check.js';
import { parseTotp } from '../src/domain/totp.js';
import type { FailureKind } from '../src/domain/verdicts.js';
import { loadProjectFile } from '../src/services/project-files.js';
import type { VerifyRecordingInput } from '../workflows/shared.js';

export interface VerifyRecordingResult {
  status: 'PASSED' | 'FAILED';
  failedStepIndex?: number;
  error?: string;
  failureKind?: FailureKind;
  durationMs: number;
}

/**
 * Right after a recording (or a replay) typed a TOTP code, waits until a new one is current: a site refuses a code
 * used twice. A resume-from chain may sign in with a TOTP code as well: then every TOTP config of the test counts.
 */
export async function waitForFreshTotp(ctx: ExecutionContext, steps: Step[]): Promise<void> {
  const periods = Object.fromEntries(ctx.totpNames.flatMap((name) => (ctx.configs[name] ? [[name, parseTotp(ctx.configs[name]).period] as const] : [])));
  const wait = msUntilFreshTotp(steps, periods, Date.now(), ctx.testCase.resumeFromId ? ctx.totpNames : []);
  if (wait > 0) await withHeartbeats((progress) => (progress({ phase: 'waiting for a fresh TOTP code', ms: wait }), sleep(wait, undefined, { signal: cancellationSignal() })));
}

/**
 * The verifying replay of a recording (issue 32): the steps replayed as a scheduled run replays them, in a fresh
 * browser context (same device, same start state, same environment access) with fresh run values and inbox (one-time
 * values are new), no model call and no healing. The recording's own context must be closed by then: a pool of one
 * context serves both in turn.
 */
export async function replayInFreshContext(deps: ActivityDeps, input: VerifyRecordingInput): Promise<VerifyRecordingResult> {
  const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
  if (!ctx) throw new NotFoundError(`test case ${input.testCaseId}`);
  const baseUrl = input.environmentUrl ?? requireEnvironmentUrl(ctx);
  await waitForFreshTotp(ctx, input.steps);
  const state = ctx.testCase.resumeFromId ? await dependencyState(deps, input.projectId, ctx.testCase.resumeFromId, baseUrl) : undefined;
  const values = adoptInbox(new RunValues(ctx), state);
  const access = await environmentAccess(deps, ctx.application.id, baseUrl, values);
  return withHeartbeats((progress) =>
    deps.browsers.withContext({ ...ctx.device, state, access, projectId: input.projectId, signal: cancellationSignal() }, async ({ page }) => {
      const result = await replaySteps(page, input.steps, {
        startUrl: state?.url ?? baseUrl,
        baseUrl,
        values,
        inbox: inboxFor(deps, input.projectId, cancellationSignal()),
        projectFiles: (name) => loadProjectFile(deps, input.projectId, name),
        timeoutMs: deps.stepTimeoutMs ?? 10_000,
        onStep: (index, step) => progress({ phase: 'verifying', step: index + 1, of: input.steps.length, action: step.action }),
      });
      return {
        status: result.status,
        ...(result.status === 'FAILED' && { failedStepIndex: result.failedStepIndex ?? -1, error: result.error ?? 'unknown error', failureKind: result.failureKind }),
        durationMs: result.durationMs,
      };
    }),
  );
}

export function createBurnInVerifyActivities(deps: ActivityDeps) {
  return {
    /** A burn-in's verifying replay, its own activity so the Temporal UI shows each one. */
    async verifyRecording(input: VerifyRecordingInput): Promise<VerifyRecordingResult> {
      return replayInFreshContext(deps, input);
    },
  };
}
