// Project issues as the API and the dashboard see them: list with filters and paging, one by id, and a person's
// status change (resolved by hand, ignored: an ignored issue is never reopened by a new sighting).
import { findIssue, listIssues, updateIssue, type IssueFilter, type IssueRow } from '../db/queries/issues.js';
import { NotFoundError } from '../domain/errors.js';
import type { IssueStatus } from '../domain/quality.js';
import type { IssueView } from '../schemas/issues.js';
import type { ServiceContext } from './context.js';

export function issueView(r: IssueRow): IssueView {
  return {
    id: r.id,
    kind: r.kind,
    severity: r.severity,
    title: r.title,
    rule: r.rule,
    page: r.page,
    sampleUrl: r.sample_url,
    status: r.status,
    occurrences: r.occurrences,
    cleanRuns: r.clean_runs,
    pages: r.pages,
    testCaseIds: r.test_case_ids,
    firstSeenAt: r.first_seen_at.toISOString(),
    lastSeenAt: r.last_seen_at.toISOString(),
    resolvedAt: r.resolved_at?.toISOString() ?? null,
    exported: r.exported,
  };
}

export async function listProjectIssues(
  { db }: ServiceContext,
  projectId: string,
  filter: IssueFilter & { limit: number; offset: number },
): Promise<{ issues: IssueView[]; total: number }> {
  const { rows, total } = await listIssues(db, projectId, filter, filter);
  return { issues: rows.map(issueView), total };
}

export async function getIssue({ db }: ServiceContext, projectId: string, id: string): Promise<IssueView> {
  const row = await findIssue(db, projectId, id);
  if (!row) throw new NotFoundError('Issue');
  return issueView(row);
}

export async function setIssueStatus(
  { db }: ServiceContext,
  projectId: string,
  id: string,
  status: IssueStatus,
): Promise<IssueView> {
  const row = await findIssue(db, projectId, id);
  if (!row) throw new NotFoundError('Issue');
  if (row.status !== status) {
    // Reopened by hand: its clean runs count again from zero.
    await updateIssue(db, id, { status, clean_runs: 0, resolved_at: status === 'resolved' ? new Date() : null });
  }
  return getIssue({ db }, projectId, id);
}
