// The baselines of a test's visual checks in the blob store: one image per check, environment and device preset,
// under `baselines/<project>/<test case>/<baseline name>/<environment>/<device>.png`. Burn-in writes them; a replay
// compares with them, and a failed check keeps its diff with the run and proposes its image as the new baseline.
import { createHash } from 'node:crypto';
import type { ActivityDeps } from './deps.js';
import type { VisualBaselines } from '../src/browser/steps/kind.js';
import type { DeviceSettings } from '../src/domain/device.js';
import type { ExecutionContext } from '../src/db/queries/execution.js';
import type { Step } from '../src/domain/steps.js';
import type { FailureEvidence, VisualDifference } from '../src/domain/verdicts.js';
import { newBaselineName } from '../src/ids.js';
import { BlobNotFoundError } from '../src/storage/blob-store.js';
import type { HealRecord } from '../src/services/heal-proposals.js';

export interface VisualScope {
  projectId: string;
  testCaseId: string;
  /** The environment's URL: its baselines are its own (another environment may show other data). */
  baseUrl: string;
  device: DeviceSettings | null | undefined;
}

/** A test case's visual baselines in this environment and on its device preset (burn-in and its replays). */
export const visualFor = (
  deps: Pick<ActivityDeps, 'blobs'>,
  projectId: string,
  ctx: ExecutionContext,
  baseUrl: string,
  mode: VisualBaselines['mode'],
) => visualBaselines(deps, { projectId, testCaseId: ctx.testCase.id, baseUrl, device: ctx.device }, mode);

/** What a failed visual check left with the run. */
export interface VisualFailure {
  diffKey?: string;
  actualKey?: string;
  /** The baseline it was compared with. */
  baselineKey?: string;
  /** The image taken, for the proposal of a new baseline. */
  actual: Buffer;
  /** The baseline name of the check (unique among the test's steps). */
  from: string;
  ratio: number;
}

/** The environment's part of a baseline's key: a digest of its URL (a URL is no blob key). */
const environmentKey = (baseUrl: string) => createHash('sha256').update(baseUrl).digest('hex').slice(0, 16);

/** The device preset's part: what decides the pixels (viewport, scale, mobile), Playwright's default without one. */
function deviceKey(device: DeviceSettings | null | undefined): string {
  if (!device) return 'default';
  const { viewport, deviceScaleFactor, isMobile } = device;
  return `${viewport.width}x${viewport.height}-${deviceScaleFactor}x${isMobile ? '-mobile' : ''}`;
}

const folder = (scope: VisualScope, name: string) => `baselines/${scope.projectId}/${scope.testCaseId}/${name}/`;
const baselineKey = (scope: VisualScope, name: string) =>
  `${folder(scope, name)}${environmentKey(scope.baseUrl)}/${deviceKey(scope.device)}.png`;

function nameOf(step: Step): string {
  if (!step.visual?.baseline) throw new Error(`the visual check has no baseline name (step: ${step.description})`);
  return step.visual.baseline;
}

async function getOrNone(deps: Pick<ActivityDeps, 'blobs'>, key: string): Promise<Buffer | undefined> {
  try {
    return await deps.blobs.get(key);
  } catch (err) {
    if (err instanceof BlobNotFoundError) return undefined;
    throw err;
  }
}

/**
 * The baselines for one browser session. `artifactPrefix` (a run's): where a failed check's diff and image go;
 * without one (a burn-in's verifying replay) they are not kept, the failure's message says what differed. A replay
 * goes on after a visual difference, so one session may report several, each under its own keys.
 */
export function visualBaselines(
  deps: Pick<ActivityDeps, 'blobs'>,
  scope: VisualScope,
  mode: VisualBaselines['mode'],
  artifactPrefix?: string,
): VisualBaselines & { failures(): VisualFailure[] } {
  const failures: VisualFailure[] = [];
  // Which key each check's baseline was read from: the review links it beside the diff.
  const readFrom = new Map<string, string>();
  const readKey = async (name: string, key: string) => {
    const png = await getOrNone(deps, key);
    if (png) readFrom.set(name, key);
    return png;
  };
  return {
    mode,
    async read(step) {
      const own = await readKey(nameOf(step), baselineKey(scope, nameOf(step)));
      if (own) return own;
      // An environment without its own (a preview deployment, a new staging) is compared with another's on the
      // same device: the first run on a broken preview must not become its baseline and pass.
      const sameDevice = `/${deviceKey(scope.device)}.png`;
      for await (const blob of deps.blobs.list(folder(scope, nameOf(step))))
        if (blob.key.endsWith(sameDevice)) return readKey(nameOf(step), blob.key);
      return undefined;
    },
    async write(step, png) {
      await deps.blobs.put(baselineKey(scope, nameOf(step)), png, 'image/png');
    },
    async differs(step, { actual, diff, ratio }) {
      const from = nameOf(step);
      const failure: VisualFailure = { actual, from, ratio, baselineKey: readFrom.get(from) };
      failures.push(failure);
      if (!artifactPrefix) return;
      failure.actualKey = `${artifactPrefix}/visual-${from}-actual.png`;
      await deps.blobs.put(failure.actualKey, actual, 'image/png');
      if (!diff) return;
      failure.diffKey = `${artifactPrefix}/visual-${from}-diff.png`;
      await deps.blobs.put(failure.diffKey, diff, 'image/png');
    },
    failures: () => failures,
  };
}

/**
 * A failed check's image as the step's new baseline, for a person to accept or refuse as a heal proposal: a new
 * baseline name holding this image here and a copy of every other environment's and device's baseline (they were
 * not what failed), so accepting it changes only what was seen to change.
 */
export async function proposeBaseline(
  deps: Pick<ActivityDeps, 'blobs'>,
  scope: VisualScope,
  steps: Step[],
  index: number,
  failure: VisualFailure,
  reason: string,
): Promise<{ steps: Step[]; healed: HealRecord[] }> {
  const step = steps[index]!;
  const name = newBaselineName();
  const from = folder(scope, failure.from);
  for await (const blob of deps.blobs.list(from)) {
    await deps.blobs.put(
      `${folder(scope, name)}${blob.key.slice(from.length)}`,
      await deps.blobs.get(blob.key),
      'image/png',
    );
  }
  await deps.blobs.put(baselineKey(scope, name), failure.actual, 'image/png');
  const changed = steps.map((s, i) => (i === index ? { ...step, visual: { ...step.visual!, baseline: name } } : s));
  return { steps: changed, healed: [{ index, from: failure.from, to: name, via: 'baseline', reason }] };
}

const indexOf = (steps: Step[], f: VisualFailure) => steps.findIndex((s) => s.visual?.baseline === f.from);

/**
 * The evidence a run keeps of its visual differences: each (step order) with its images, and the first one's diff
 * and image as the failure's own when the test failed there. Nothing when no check differed.
 */
export function visualEvidence(
  steps: Step[],
  failures: VisualFailure[],
): Pick<FailureEvidence, 'diffKey' | 'actualKey' | 'visualChanges'> {
  const changes: VisualDifference[] = failures
    .map((f) => {
      const index = indexOf(steps, f);
      const locator = steps[index]?.locator;
      return {
        stepIndex: index,
        ...(locator && { locator }),
        ratio: f.ratio,
        ...(f.baselineKey && { baselineKey: f.baselineKey }),
        ...(f.actualKey && { actualKey: f.actualKey }),
        ...(f.diffKey && { diffKey: f.diffKey }),
      };
    })
    .sort((a, b) => a.stepIndex - b.stepIndex);
  const [first] = changes;
  if (!first) return {};
  return {
    ...(first.diffKey && { diffKey: first.diffKey }),
    ...(first.actualKey && { actualKey: first.actualKey }),
    visualChanges: changes,
  };
}

/**
 * A test whose only failures are visual differences: each check's image proposed as its new baseline, together in
 * one proposal (accepting it makes the next run on this page pass). A test that also failed elsewhere proposes
 * none: its page is broken, not only restyled.
 */
export async function proposeBaselines(
  deps: Pick<ActivityDeps, 'blobs'>,
  scope: VisualScope,
  steps: Step[],
  failures: VisualFailure[],
  reason: string,
): Promise<{ steps: Step[]; healed: HealRecord[] }> {
  let proposed = { steps, healed: [] as HealRecord[] };
  for (const failure of failures) {
    const index = indexOf(proposed.steps, failure);
    if (index < 0) continue;
    const next = await proposeBaseline(deps, scope, proposed.steps, index, failure, reason);
    proposed = { steps: next.steps, healed: [...proposed.healed, ...next.healed] };
  }
  return proposed;
}
