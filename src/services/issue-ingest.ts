// Signals into issues: a test's signals are stored, fingerprinted and folded into the project's issues (one per
// fingerprint: occurrences, pages, tests), and a passing run of a test that no longer shows an open issue counts
// towards that issue resolving itself after the project's number of clean runs.
import { createHash } from 'node:crypto';
import type { DB } from '../db/database.js';
import {
  burnInSignalsStored,
  claimSignalCounts,
  findQualitySettings,
  findRunTestCaseForSignals,
  insertSignals,
  lockIssue,
  lockOpenIssuesOfTest,
  updateIssue,
  type NewSignalRow,
} from '../db/queries/issues.js';
import {
  countSignals,
  defaultIssueResolveAfterRuns,
  fingerprintKey,
  issueTitle,
  pageTemplate,
  worse,
  type QualitySignal,
} from '../domain/quality.js';
import { newId } from '../ids.js';
import type { ServiceContext } from './context.js';

const maxListed = 20;

export const fingerprintOf = (signal: QualitySignal): string =>
  createHash('sha256').update(fingerprintKey(signal)).digest('hex').slice(0, 32);

/** The project's request URL patterns whose failures are not signals. */
export async function signalIgnoreUrls({ db }: ServiceContext, projectId: string): Promise<string[]> {
  return (await findQualitySettings(db, projectId))?.signal_ignore_urls ?? [];
}

/**
 * A replayed test's signals, kept with its run test case once (a retried write changes nothing). Runs of change
 * reviews keep their signals for the review's comparison but do not touch the project's issues: a preview is not the
 * application yet.
 */
export async function recordRunSignals(
  { db }: ServiceContext,
  input: { runTestCaseId: string; signals: QualitySignal[] },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const rtc = await findRunTestCaseForSignals(trx, input.runTestCaseId);
    if (!rtc || !(await claimSignalCounts(trx, input.runTestCaseId, countSignals(input.signals)))) return;
    await insertSignals(
      trx,
      input.signals.map((s) => signalRow(s, rtc.project_id, rtc.test_case_id, input.runTestCaseId)),
    );
    if (rtc.trigger === 'CHANGE_REVIEW' || !rtc.test_case_id) return;
    await foldIntoIssues(trx, rtc.project_id, rtc.test_case_id, input.signals, rtc.result === 'PASSED');
  });
}

/**
 * A burn-in's signals (on the application's own environment): kept with the test case, folded into issues. `burnIn`
 * names the execution (workflow and run id): an activity retried after storing them stores nothing the second time.
 */
export async function recordBurnInSignals(
  { db }: ServiceContext,
  input: { projectId: string; testCaseId: string; burnIn: string; signals: QualitySignal[] },
): Promise<void> {
  if (input.signals.length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (await burnInSignalsStored(trx, input.burnIn)) return;
    await insertSignals(
      trx,
      input.signals.map((s) => ({ ...signalRow(s, input.projectId, input.testCaseId, null), burn_in: input.burnIn })),
    );
    // A burn-in is exploration, not a clean run of a recorded test: it never counts towards resolving.
    await foldIntoIssues(trx, input.projectId, input.testCaseId, input.signals, false);
  });
}

function signalRow(
  s: QualitySignal,
  projectId: string,
  testCaseId: string | null,
  runTestCaseId: string | null,
): NewSignalRow {
  return {
    id: newId(),
    project_id: projectId,
    run_test_case_id: runTestCaseId,
    test_case_id: testCaseId,
    fingerprint: fingerprintOf(s),
    kind: s.kind,
    severity: s.severity,
    message: s.message,
    rule: s.rule ?? null,
    target: s.target ?? null,
    url: s.url,
    page: pageTemplate(s.url),
    step_index: s.stepIndex,
    burn_in: null,
  };
}

const withItem = (list: string[], item: string): string[] =>
  list.includes(item) || list.length >= maxListed ? list : [...list, item];

async function foldIntoIssues(
  db: DB,
  projectId: string,
  testCaseId: string,
  signals: QualitySignal[],
  passed: boolean,
): Promise<void> {
  const now = new Date();
  // One occurrence per test execution, however often the page showed it.
  const byFingerprint = new Map<string, QualitySignal>();
  for (const s of signals) if (!byFingerprint.has(fingerprintOf(s))) byFingerprint.set(fingerprintOf(s), s);
  // In fingerprint order: two tests folding at once lock the same issues in the same order.
  for (const [fingerprint, s] of [...byFingerprint].sort(([a], [b]) => a.localeCompare(b))) {
    const issue = await lockIssue(db, {
      id: newId(),
      project_id: projectId,
      fingerprint,
      kind: s.kind,
      severity: s.severity,
      title: issueTitle(s),
      rule: s.rule ?? null,
      page: pageTemplate(s.url),
      sample_url: s.url,
    });
    await updateIssue(db, issue.id, {
      severity: worse(issue.severity, s.severity),
      occurrences: issue.occurrences + 1,
      clean_runs: 0,
      last_seen_at: now,
      pages: withItem(issue.pages, pageTemplate(s.url)),
      test_case_ids: withItem(issue.test_case_ids, testCaseId),
      // Seen again after it resolved: it is back. An ignored issue stays ignored.
      ...(issue.status === 'resolved' && { status: 'open', resolved_at: null }),
    });
  }
  if (!passed) return;
  const resolveAfter =
    (await findQualitySettings(db, projectId))?.issue_resolve_after_runs ?? defaultIssueResolveAfterRuns;
  for (const issue of await lockOpenIssuesOfTest(db, projectId, testCaseId)) {
    if (byFingerprint.has(issue.fingerprint)) continue;
    const clean = issue.clean_runs + 1;
    await updateIssue(db, issue.id, {
      clean_runs: clean,
      ...(clean >= resolveAfter && { status: 'resolved', resolved_at: now }),
    });
  }
}
