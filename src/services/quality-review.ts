// What a change review weighs besides results: each test's quality signals on the preview against its latest run
// on the base environment (outside change reviews). A test without such a baseline gets no comparison: without
// one, every signal would look new.
import { findBaselineRunTestCase, signalsOfRunTestCase, type SignalRow } from '../db/queries/issues.js';
import { compareSignals, issueTitle, type QualityDelta } from '../domain/quality.js';
import type { ServiceContext } from './context.js';

const finding = (s: SignalRow) => ({
  fingerprint: s.fingerprint,
  kind: s.kind,
  severity: s.severity,
  title: issueTitle({
    kind: s.kind,
    severity: s.severity,
    message: s.message,
    url: s.url,
    stepIndex: s.step_index,
    ...(s.rule !== null && { rule: s.rule }),
    ...(s.target !== null && { target: s.target }),
  }),
  page: s.page,
});

/** By test case id: the comparison of each test of the review's run that has a baseline. */
export async function reviewQuality(
  { db }: ServiceContext,
  projectId: string,
  rows: { id: string; test_case_id: string | null; signal_counts?: unknown }[],
): Promise<Map<string, QualityDelta & { newCount: number; fixedCount: number }>> {
  const deltas = new Map<string, QualityDelta & { newCount: number; fixedCount: number }>();
  for (const row of rows) {
    if (!row.test_case_id) continue;
    const baseline = await findBaselineRunTestCase(db, projectId, row.test_case_id);
    if (!baseline) continue;
    const [preview, base] = await Promise.all([
      signalsOfRunTestCase(db, row.id),
      signalsOfRunTestCase(db, baseline.id),
    ]);
    deltas.set(row.test_case_id, compareSignals(preview.map(finding), base.map(finding)));
  }
  return deltas;
}
