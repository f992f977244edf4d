// A change review's visual changes as the API shows them: the stored findings carry blob keys, answered as presigned
// links (fresh at each read, as a run's screenshotUrl), so a client with the review's API token can open the images.
import type { VisualChangeFinding } from '../domain/review-visual.js';
import type { ChangeReviewTestResult } from '../../workflows/change-review-contract.js';
import type { ServiceContext } from './context.js';

export interface VisualChangeView {
  stepIndex: number;
  step: string;
  target: string;
  ratio: number;
  diffUrl: string | null;
  actualUrl: string | null;
  baselineUrl: string | null;
  /** The same images on the dashboard (for a signed-in person of the project): the reply and the MR note link them. */
  pages: { diff: string | null; actual: string | null; baseline: string | null };
}

export type ReviewTestView = Omit<ChangeReviewTestResult, 'visualChanges' | 'testUrl'> & {
  visualChanges?: VisualChangeView[];
};

async function viewOf(
  deps: ServiceContext<'blobs' | 'urlTtlSeconds'>,
  v: VisualChangeFinding,
): Promise<VisualChangeView> {
  const link = async (key: string | undefined) => (key ? deps.blobs.presignGet(key, deps.urlTtlSeconds) : null);
  return {
    stepIndex: v.stepIndex,
    step: v.step,
    target: v.target,
    ratio: v.ratio,
    diffUrl: await link(v.diffKey),
    actualUrl: await link(v.actualKey),
    baselineUrl: await link(v.baselineKey),
    pages: { diff: v.diffUrl ?? null, actual: v.actualUrl ?? null, baseline: v.baselineUrl ?? null },
  };
}

/** The tests with their visual changes' images linked, and every counted visual change as a list of its own. */
export async function reviewTestsView(
  deps: ServiceContext<'blobs' | 'urlTtlSeconds'>,
  tests: ChangeReviewTestResult[],
): Promise<{
  tests: ReviewTestView[];
  visualChanges: (VisualChangeView & { testCaseId: string; testName: string })[];
}> {
  const views: ReviewTestView[] = await Promise.all(
    tests.map(async ({ visualChanges, testUrl: _page, ...t }) =>
      visualChanges?.length ? { ...t, visualChanges: await Promise.all(visualChanges.map((v) => viewOf(deps, v))) } : t,
    ),
  );
  return {
    tests: views,
    visualChanges: views.flatMap((t) =>
      t.quarantined ? [] : (t.visualChanges ?? []).map((v) => ({ testCaseId: t.testCaseId, testName: t.name, ...v })),
    ),
  };
}
