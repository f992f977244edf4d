// What a change review reads of the coverage map (issue 34): per application the review concerns, the page patterns
// of its latest completed discovery that no enabled test visits and that the change touches. A change touches a page
// when one of its files is that page's route by its framework's conventions (src/domain/route-files.ts), or when the
// review's own run went there (a new test the review wrote is disabled: the pages only it visits stay uncovered).
import { getApplication, listApplications } from '../db/queries/applications.js';
import type { ChangeReviewRecord } from '../db/queries/change-reviews.js';
import { coverageTestRows } from '../db/queries/coverage-tests.js';
import { latestCompletedDiscovery } from '../db/queries/discovery-suggestions.js';
import { runTestRows } from '../db/queries/runs.js';
import type { UncoveredPages } from '../domain/change-review-reply.js';
import { computeCoverage } from '../domain/coverage.js';
import { coveredTests } from '../domain/coverage-tests.js';
import { patternsTouchedBy } from '../domain/route-files.js';
import { coverageMapOf } from './application-coverage.js';
import type { ServiceContext } from './context.js';

/**
 * The uncovered pages `paths` (the change's files) and the review's run touch, per application: those the review
 * names in its overrides (its previews), else every application of the project. An application without a completed
 * discovery has no map and is left out; so is one whose touched pages are all covered.
 */
export async function uncoveredPagesOfChange(
  services: ServiceContext,
  review: Pick<ChangeReviewRecord, 'projectId' | 'applicationOverrides' | 'runId'>,
  paths: readonly string[],
): Promise<UncoveredPages[]> {
  const { db } = services;
  const named = new Set(review.applicationOverrides.map((o) => o.applicationShortId));
  const applications = (await listApplications(db, review.projectId)).filter(
    (a) => named.size === 0 || named.has(a.shortId),
  );
  const ranTests = new Set(
    review.runId ? (await runTestRows(db, review.runId, false)).flatMap((r) => r.test_case_id ?? []) : [],
  );
  const out: UncoveredPages[] = [];
  for (const { shortId } of applications) {
    const application = await getApplication(db, review.projectId, shortId);
    if (!application) continue;
    const discovery = await latestCompletedDiscovery(db, review.projectId, application.id);
    if (!discovery) continue;
    const map = await coverageMapOf(services, discovery);
    const base = discovery.start_url;
    const rows = await coverageTestRows(db, review.projectId, application.id);
    const enabled = computeCoverage(map, coveredTests(rows, base), base);
    const uncovered = new Set(enabled.patterns.filter((p) => !p.covered).map((p) => p.pattern));
    if (uncovered.size === 0) continue;
    // The run's tests as if enabled, each from where it really starts (its dependency's end).
    const ran = rows.map((r) => ({ ...r, enabled: ranTests.has(r.id) }));
    const visited = new Set(
      computeCoverage(map, coveredTests(ran, base), base)
        .patterns.filter((p) => p.covered)
        .map((p) => p.pattern),
    );
    const touched = new Set([
      ...patternsTouchedBy(
        paths,
        map.map((p) => p.pattern),
      ),
      ...visited,
    ]);
    const patterns = map.map((p) => p.pattern).filter((p) => touched.has(p) && uncovered.has(p));
    if (patterns.length > 0)
      out.push({ applicationName: application.name, discoveryShortId: discovery.short_id, patterns });
  }
  return out;
}
