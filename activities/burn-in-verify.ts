import type { ActivityDeps } from './deps.js';
import { requireEnvironmentUrl, sessionStart } from './burn-in.js';
import { visualFor } from './visual.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import { projectStepOptions } from './step-options.js';
import { replaySteps } from '../src/browser/replay/replay.js';
import { loadExecutionContext } from '../src/db/queries/execution.js';
import { waitForFreshTotp } from './fresh-totp.js';
import { NotFoundError } from '../src/domain/errors.js';
import type { FailureKind } from '../src/domain/verdicts.js';
import type { VerifyRecordingInput } from '../workflows/burn-in-contract.js';

export interface VerifyRecordingResult {
  status: 'PASSED' | 'FAILED';
  failedStepIndex?: number;
  error?: string;
  failureKind?: FailureKind;
  durationMs: number;
}

/**
 * The verifying replay of a recording (issue 32): the steps replayed as a scheduled run replays them, in a fresh
 * browser context (same device, same start state, same environment access) with fresh run values and inbox (one-time
 * values are new), no model call and no healing. The recording's own context must be closed by then: a pool of one
 * context serves both in turn.
 */
export async function replayInFreshContext(
  deps: ActivityDeps,
  input: VerifyRecordingInput,
): Promise<VerifyRecordingResult> {
  const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
  if (!ctx) throw new NotFoundError(`test case ${input.testCaseId}`);
  const baseUrl = input.environmentUrl ?? requireEnvironmentUrl(ctx);
  await waitForFreshTotp(ctx, input.steps);
  const { state, values, access } = await sessionStart(deps, input.projectId, ctx, baseUrl);
  return withHeartbeats((progress) =>
    deps.browsers.withContext(
      { ...ctx.device, state, access, projectId: input.projectId, signal: cancellationSignal() },
      async ({ page }) => {
        const result = await replaySteps(page, input.steps, {
          visual: visualFor(deps, input.projectId, ctx, baseUrl, 'compare'),
          startUrl: state?.url ?? baseUrl,
          baseUrl,
          values,
          ...projectStepOptions(deps, input.projectId),
          onStep: (index, step) =>
            progress({ phase: 'verifying', step: index + 1, of: input.steps.length, action: step.action }),
        });
        return {
          status: result.status,
          ...(result.status === 'FAILED' && {
            failedStepIndex: result.failedStepIndex ?? -1,
            error: result.error ?? 'unknown error',
            failureKind: result.failureKind,
          }),
          durationMs: result.durationMs,
        };
      },
    ),
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
