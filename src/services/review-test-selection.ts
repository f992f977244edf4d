// Which tests a change review runs: the affected enabled tests the model chose (ids checked against the catalogue,
// unknown ones dropped) and new tests where coverage is missing (deduplicated against each other and the catalogue,
// each under a stable id, at most five). The model call itself is the caller's (an activity heartbeats around it).
import { createHash } from 'node:crypto';
import { listApplications } from '../db/queries/applications.js';
import { testsFromEarlierReviews, type ChangeReviewRecord, type StoredChange } from '../db/queries/change-reviews.js';
import { listTestCases } from '../db/queries/test-case-views.js';
import { dedupeGoals, normalizeGoal } from '../domain/change-review.js';
import { titleFrom } from '../domain/chat.js';
import { fitDiffToBudget } from '../domain/diff.js';
import type { CatalogueTest, ReviewedChange, TestSelection } from '../llm/change-review.js';
import type { ServiceContext } from './context.js';

/** The label of tests a review creates (they stay disabled until someone enables them for plans). */
export const changeReviewLabel = 'change-review';
/** Tokens of diff the selection prompt may carry; the rest of the change is named by file (src/domain/diff.ts). */
export const reviewDiffBudgetTokens = 12_000;
const maxNewTests = 5;

export interface ReviewNewTest {
  /** Stable per review and goal: a retried creation finds the test it wrote. */
  id: string;
  name: string;
  goal: string;
  applicationShortId: string;
  expectedResult?: string;
  resumeFromTestCaseId?: string;
}

export interface ReviewSelection {
  existing: { id: string; name: string }[];
  newTests: ReviewNewTest[];
  reasoning: string;
}

/** What the model is asked to choose from: the change, the project's enabled tests, earlier reviews' tests, its applications. */
export interface SelectionRequest {
  change: ReviewedChange;
  catalogue: CatalogueTest[];
  fromEarlierReviews: CatalogueTest[];
  applications: { shortId: string; name: string }[];
}

/** A uuid-shaped id from the review and the goal's words: the same goal in the same review is the same test. */
export function reviewTestCaseId(changeReviewId: string, goal: string): string {
  const hex = createHash('sha256')
    .update(`${changeReviewId}\n${normalizeGoal(goal)}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The tests the review runs, from one `choose` call (the model) over the review's catalogue. */
export async function selectReviewTests(
  deps: ServiceContext,
  input: {
    review: ChangeReviewRecord;
    change: StoredChange;
    choose: (request: SelectionRequest) => Promise<TestSelection>;
  },
): Promise<ReviewSelection> {
  const { db } = deps;
  const { review, change } = input;
  const page = await listTestCases(db, review.projectId, { isEnabled: true }, { limit: 2_000, offset: 0 });
  const enabled: CatalogueTest[] = (page?.testCases ?? []).map((t) => ({
    id: t.id,
    name: t.name,
    goal: t.goal,
    applicationShortId: t.applicationShortId,
    applicationName: t.applicationName,
  }));
  const enabledIds = new Set(enabled.map((t) => t.id));
  const fromEarlierReviews = (await testsFromEarlierReviews(db, review)).filter((t) => !enabledIds.has(t.id));
  const catalogue = [...enabled, ...fromEarlierReviews];
  const applications = (await listApplications(db, review.projectId)).map((a) => ({
    shortId: a.shortId,
    name: a.name,
  }));
  const fitted = fitDiffToBudget(change.files, {
    budgetTokens: reviewDiffBudgetTokens,
    hints: `${change.title}\n${change.description}\n${review.context ?? ''}`,
  });
  const selection = await input.choose({
    change: {
      title: change.title,
      description: change.description,
      context: review.context,
      diffText: fitted.text,
      fileCount: change.files.length,
    },
    catalogue: enabled,
    fromEarlierReviews,
    applications,
  });
  const byId = new Map(catalogue.map((t) => [t.id, t]));
  const existing = [...new Set(selection.existingTestCaseIds.map((id) => id.toLowerCase()))]
    .filter((id) => byId.has(id))
    .map((id) => ({ id, name: byId.get(id)!.name }));
  const appIds = new Set(applications.map((a) => a.shortId));
  const newTests = dedupeGoals(
    selection.newTests,
    catalogue.map((t) => t.goal ?? t.name),
  )
    .map((t) => ({
      ...t,
      applicationShortId: appIds.has(t.applicationShortId)
        ? t.applicationShortId
        : applications.length === 1
          ? applications[0]!.shortId
          : '',
    }))
    .filter((t) => t.applicationShortId)
    .slice(0, maxNewTests)
    .map((t) => ({
      id: reviewTestCaseId(review.id, t.goal),
      name: (t.name || titleFrom(t.goal)).slice(0, 80),
      goal: t.goal,
      applicationShortId: t.applicationShortId,
      ...(t.expectedResult && { expectedResult: t.expectedResult }),
      ...(t.resumeFromTestCaseId &&
        byId.has(t.resumeFromTestCaseId.toLowerCase()) && {
          resumeFromTestCaseId: t.resumeFromTestCaseId.toLowerCase(),
        }),
    }));
  return { existing, newTests, reasoning: selection.reasoning };
}
