import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActivityDeps } from './deps.js';
import { environmentAccess } from './environment-access.js';
import { requireEnvironmentUrl } from './burn-in.js';
import { BadTestDefinitionError, GoneError, NotFoundError } from '../src/domain/errors.js';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import { liveView } from './live-view.js';
import { redactTrace } from '../src/browser/quality/trace-redaction.js';
import { stepsUseSecret } from '../src/browser/quality/secret-mask.js';
import { failureScreenshot } from '../src/browser/quality/failure-screenshot.js';
import { replaySteps, type ExpectationProposal, type HealedStep } from '../src/browser/replay/replay.js';
import { captureBrowserState } from '../src/browser/context/state.js';
import { RunValues } from '../src/domain/run-values.js';
import { adoptInbox, withInbox } from './inbox.js';
import { projectStepOptions } from './step-options.js';
import { loadExecutionContext } from '../src/db/queries/execution.js';
import type { DeviceSettings } from '../src/domain/device.js';
import { withLocatorInFront, type BrowserState, type Step } from '../src/domain/steps.js';
import type { FailureEvidence, FailureKind, StepChange } from '../src/domain/verdicts.js';
import { createLlmHealer } from '../src/llm/heal.js';
import { llmFor } from './llm-usage.js';
import { BlobNotFoundError } from '../src/storage/blob-store.js';
import { keepDownload, type KeptDownload } from '../src/services/run-downloads.js';
import { keepHealedSteps, type HealRecord, type KeptHeal } from '../src/services/heal-proposals.js';
import { proposeInGit } from './git-sync.js';
import { SignalCollector } from '../src/browser/quality/signals.js';
import { projectScanCache } from '../src/services/a11y-scans.js';
import type { QualitySignal } from '../src/domain/quality.js';
import { signalIgnoreUrls } from '../src/services/issue-ingest.js';
import { proposeBaselines, visualBaselines, visualEvidence } from './visual.js';

export interface ExecuteTestInput {
  projectId: string;
  testCaseId: string;
  /** Prefix of artifact keys, e.g. `runs/run_abc/<testCaseId>`. */
  artifactPrefix: string;
  /** The environment URL for this run; the application's default environment when absent. */
  baseUrl?: string;
  device?: DeviceSettings | null;
  /** Blob key of a resume-from dependency's browser state: the test starts where that one ended. */
  stateKey?: string;
  /** Let the LLM pick a moved element when a locator no longer matches (needs an LLM). */
  heal?: boolean;
  /** After passing, store the final browser state for dependents under this blob key. */
  captureStateKey?: string;
  /** The run and its row this replay serves: a heal's LLM calls are counted to them. */
  runId?: string;
  runTestCaseId?: string;
}

export interface ExecuteTestResult {
  status: 'PASSED' | 'FAILED';
  failedStepIndex?: number;
  error?: string;
  healed: HealedStep[];
  /** The steps version stored after healing (`auto` heal policy), else the version that ran. */
  stepsVersion: number;
  /** What became of the healed steps: saved, proposed for review, or nothing (and why). */
  keptHeal?: KeptHeal;
  screenshotKey?: string;
  traceKey?: string;
  durationMs: number;
  llmCalls: number;
  /** The captureStateKey, when the final browser state was stored there. */
  stateKey?: string;
  /** How the elements the replay touched differ from the recorded ones (empty: all the same). */
  changes: StepChange[];
  /** Why it failed (FAILED only). */
  failureKind?: FailureKind;
  evidence?: FailureEvidence;
  /** Files the steps downloaded (checked as recorded), kept in the blob store. */
  downloads?: KeptDownload[];
  /** Console errors, exceptions, failed requests and a11y violations the replay saw (distinct, bounded). */
  signals?: QualitySignal[];
}

/** The dependency passed and stored its state before this test was started, so a missing blob is permanent. */
async function readBrowserState(deps: ActivityDeps, key: string): Promise<BrowserState> {
  try {
    return JSON.parse((await deps.blobs.get(key)).toString('utf8')) as BrowserState;
  } catch (err) {
    if (err instanceof BlobNotFoundError) {
      throw new GoneError(`browser state of the resume-from dependency is gone (${key})`);
    }
    throw err;
  }
}

export function createTestExecutionActivities(deps: ActivityDeps) {
  return {
    /** Replays the recorded steps in a fresh context: no LLM unless a locator must be healed. */
    async executeTest(input: ExecuteTestInput): Promise<ExecuteTestResult> {
      const ctx = await loadExecutionContext(deps.db, input.projectId, input.testCaseId);
      if (!ctx) throw new NotFoundError(`test case ${input.testCaseId}`);
      const steps = ctx.testCase.steps;
      if (!steps?.length) {
        throw new BadTestDefinitionError(`test case "${ctx.testCase.name}" has no recorded steps`);
      }
      const baseUrl = input.baseUrl ?? requireEnvironmentUrl(ctx);
      const values = new RunValues(ctx);
      let llmCalls = 0;
      const heal =
        input.heal && deps.llm
          ? createLlmHealer(
              llmFor(deps, deps.llm, {
                projectId: input.projectId,
                purpose: 'heal',
                testCaseId: ctx.testCase.id,
                runId: input.runId,
                runTestCaseId: input.runTestCaseId,
              }),
              () => values.secrets(),
              () => llmCalls++,
            )
          : undefined;
      const state = input.stateKey ? await readBrowserState(deps, input.stateKey) : undefined;
      adoptInbox(values, state);
      const traceDir = await mkdtemp(join(tmpdir(), 'proctor-trace-'));

      try {
        const access = await environmentAccess(deps, ctx.application.id, baseUrl, values);
        return await withHeartbeats((progress) =>
          deps.browsers.withContext(
            {
              ...(input.device ?? ctx.device),
              state,
              access,
              projectId: input.projectId,
              signal: cancellationSignal(),
            },
            liveView(
              deps,
              {
                projectId: input.projectId,
                kind: 'run_test',
                subjectId: input.runTestCaseId,
                secrets: () => Object.values(values.secrets()),
              },
              async ({ context, page, live }) => {
                await context.tracing.start({ screenshots: true, snapshots: true, title: ctx.testCase.name });
                const collector = new SignalCollector(page, {
                  ignoreUrls: await signalIgnoreUrls(deps, input.projectId),
                  scanCache: projectScanCache(deps, input.projectId),
                });
                const downloads: KeptDownload[] = [];
                const scope = {
                  projectId: input.projectId,
                  testCaseId: ctx.testCase.id,
                  baseUrl,
                  device: input.device ?? ctx.device,
                };
                const visual = visualBaselines(deps, scope, 'compare', input.artifactPrefix);
                const result = await replaySteps(page, steps, {
                  visual,
                  startUrl: state?.url ?? baseUrl,
                  baseUrl,
                  values,
                  ...projectStepOptions(deps, input.projectId),
                  heal,
                  onDownload: async (index, file) => {
                    const kept = await keepDownload(deps.blobs, input.artifactPrefix, index, file);
                    if (kept) downloads.push(kept);
                  },
                  onStep: async (index, step) => {
                    await collector.beforeStep(index);
                    progress({ step: index + 1, of: steps.length, action: step.action });
                    live.step({ step: index + 1, action: step.action, description: step.description, ok: true });
                  },
                });
                const signals = await collector.finish();

                let screenshotKey: string | undefined;
                if (result.status === 'FAILED') {
                  screenshotKey = `${input.artifactPrefix}/failure.png`;
                  // Fields a secret was typed into (and text echoing one) are painted over, password inputs or not.
                  const png = await failureScreenshot(page, Object.values(values.secrets()), {
                    timeout: 10_000,
                  }).catch(() => undefined);
                  if (png) await deps.blobs.put(screenshotKey, png, 'image/png');
                  else screenshotKey = undefined;
                }
                let stateKey: string | undefined;
                if (input.captureStateKey && result.status === 'PASSED') {
                  // By reference: megabytes of cookies and storage must not travel through workflow histories.
                  const captured = withInbox(await captureBrowserState(context, page), values);
                  await deps.blobs.put(
                    input.captureStateKey,
                    Buffer.from(JSON.stringify(captured)),
                    'application/json',
                  );
                  stateKey = input.captureStateKey;
                }
                const tracePath = join(traceDir, 'trace.zip');
                await context.tracing.stop({ path: tracePath });
                const traceKey = `${input.artifactPrefix}/trace.zip`;
                // Redacted first: the trace records typed values and request headers, secrets included.
                const secrets = values.secrets();
                const dropScreencast = stepsUseSecret(steps, Object.keys(secrets));
                await deps.blobs.put(
                  traceKey,
                  Buffer.from(redactTrace(await readFile(tracePath), Object.values(secrets), { dropScreencast })),
                  'application/zip',
                );

                let stepsVersion = ctx.testCase.stepsVersion;
                let keptHeal: KeptHeal | undefined;
                // Only a passing run proves its healed locators; a failing one keeps nothing but the new text it saw,
                // offered for a person to accept as the step's expectation.
                // Every failure visual: the images taken are proposed as the checks' new baselines.
                const failedAt = steps[result.failedStepIndex ?? -1]?.visual?.baseline;
                const visualOnly = !!failedAt && visual.failures().some((f) => f.from === failedAt);
                const kept =
                  result.status === 'PASSED'
                    ? { steps: result.steps, healed: result.healed }
                    : visualOnly
                      ? await proposeBaselines(deps, scope, steps, visual.failures(), result.error!)
                      : expectationChange(result.steps, result.proposals);
                if (kept.healed.length > 0) {
                  keptHeal = await keepHealedSteps(deps, {
                    projectId: input.projectId,
                    testCaseId: ctx.testCase.id,
                    basedOnVersion: stepsVersion,
                    ...kept,
                  });
                  // A heal saved by the `auto` policy is a change on Proctor's side: proposed in Git when synced.
                  if (keptHeal.kept === 'saved') {
                    stepsVersion = keptHeal.version;
                    await proposeInGit(deps, ctx.testCase.id);
                  }
                  deps.logger.info('steps healed', { testCaseId: ctx.testCase.id, healed: kept.healed, keptHeal });
                }
                const proposed =
                  result.status === 'FAILED' && keptHeal?.kept === 'proposed'
                    ? `; the new ${visualOnly ? 'screenshot' : 'text'} is proposed as steps version ${keptHeal.version}`
                    : '';
                return {
                  status: result.status,
                  failedStepIndex: result.failedStepIndex,
                  error: result.error && `${result.error}${proposed}`,
                  healed: result.healed,
                  stepsVersion,
                  keptHeal,
                  screenshotKey,
                  traceKey,
                  durationMs: result.durationMs,
                  llmCalls,
                  stateKey,
                  changes: result.changes,
                  failureKind: result.failureKind,
                  evidence: result.evidence && {
                    ...result.evidence,
                    ...(screenshotKey && { screenshotKey }),
                    ...visualEvidence(steps, visual.failures()),
                  },
                  ...(downloads.length > 0 && { downloads }),
                  signals,
                };
              },
            ),
          ),
        );
      } finally {
        await rm(traceDir, { recursive: true, force: true });
      }
    },
  };
}

/** The steps with each proposed expectation in place: the element as it is now, its old locators kept behind. */
function expectationChange(steps: Step[], proposals: ExpectationProposal[]): { steps: Step[]; healed: HealRecord[] } {
  const changed = steps.map((s) => ({ ...s }));
  const healed: HealRecord[] = [];
  for (const p of proposals) {
    const step = changed[p.index]!;
    changed[p.index] = { ...withLocatorInFront(step, p.locator, p.fallbacks), target: p.target };
    healed.push({ index: p.index, from: step.locator ?? null, to: p.locator, via: 'expectation', reason: p.reason });
  }
  return { steps: changed, healed };
}
