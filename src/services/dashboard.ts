// The dashboard's views: what its pages show, read from the session's project only. Each is a plain read
// (the pages render, these decide what is read); undefined where the project has no such thing.
import { listChats, type ChatMessageView } from '../db/queries/chats.js';
import { loadApplications, type ApplicationWithEnvironments } from '../db/queries/dashboard-applications.js';
import { loadConversation, type ConversationPage } from '../db/queries/dashboard-chats.js';
import { listReviews } from '../db/queries/dashboard-reviews.js';
import {
  listDashboardRuns,
  planChoices,
  runTestArtifacts,
  stepsOf,
  type DashboardRunFilter,
} from '../db/queries/dashboard-runs.js';
import { environmentNames, loadPlanSummaries } from '../db/queries/dashboard-test-plans.js';
import { findRunWithTests, type RunWithTests } from '../db/queries/runs.js';
import type { NotifyOn, RunStatus } from '../db/schema.js';
import { findDependents, findTestCaseRecords } from '../db/queries/test-cases.js';
import { getTestCase, listTestCases, type TestCaseFilter, type TestCaseView } from '../db/queries/test-case-views.js';
import { getTestPlan, type TestPlanView } from '../db/queries/test-plan-views.js';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store.js';
import { listHealProposals, type HealProposal } from './heal-proposals.js';
import { listPlanSchedules, type PlanScheduleView } from './plan-schedules.js';
import { chatTurnUsage, usageTotals, withTurnUsage } from './llm-usage.js';
import type { UsageTotals } from '../domain/llm-usage.js';
import type { Trend } from '../domain/trends.js';
import { testCaseTrend } from './trends.js';
import type { ServiceContext } from './context.js';

export type {
  ApplicationWithEnvironments,
  ChatMessageView,
  ConversationPage,
  NotifyOn,
  RunStatus,
  RunWithTests,
  TestCaseView,
};

/** The applications with their environments, for the settings page. */
export const dashboardApplications = ({ db }: ServiceContext, projectId: string) => loadApplications(db, projectId);

/** A page of the project's chats, newest first. */
export const dashboardChats = ({ db }: ServiceContext, projectId: string, page: { limit: number; offset: number }) =>
  listChats(db, projectId, page);

/** One conversation with its latest messages; undefined when the project has no such chat. */
export async function dashboardConversation({ db }: ServiceContext, projectId: string, chatShortId: string) {
  const page = await loadConversation(db, projectId, chatShortId);
  return page && withTurnUsage(page, await chatTurnUsage({ db }, projectId, page.chat.id));
}

/** A page of the project's merge request reviews, newest first. */
export const dashboardReviews = ({ db }: ServiceContext, projectId: string, page: { limit: number; offset: number }) =>
  listReviews(db, projectId, page);

/** The runs page: a page of matching runs and the plans to filter by. */
export async function dashboardRuns({ db }: ServiceContext, projectId: string, filter: DashboardRunFilter) {
  const [plans, found] = await Promise.all([planChoices(db, projectId), listDashboardRuns(db, projectId, filter)]);
  return { plans, ...found };
}

/** A run with all its tests; undefined when the project has no such run. */
export const dashboardRun = (
  { db }: ServiceContext,
  projectId: string,
  runShortId: string,
): Promise<RunWithTests | undefined> => findRunWithTests(db, projectId, runShortId, 'all');

/** What a run's heals cost in LLM calls and tokens (replays need no model). */
export const dashboardRunUsage = ({ db }: ServiceContext, projectId: string, runId: string): Promise<UsageTotals> =>
  usageTotals({ db }, projectId, { runId });

/** The recorded steps of these test cases of the project, by test case id, to name the step a test failed at. */
export const recordedSteps = (
  { db }: ServiceContext,
  projectId: string,
  testCaseIds: string[],
): Promise<Map<string, unknown>> => stepsOf(db, projectId, testCaseIds);

/**
 * The bytes of a run test's screenshot or trace, read for the session's project only (the trace viewer loads
 * them from the dashboard's origin, with no presigned URL to leak or expire); undefined when there is none.
 */
export async function runTestArtifact(
  deps: ServiceContext<'blobs'>,
  input: { projectId: string; runShortId: string; runTestId: string; which: 'screenshot_key' | 'trace_key' },
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const row = await runTestArtifacts(deps.db, input.projectId, input.runShortId, input.runTestId);
  const key = row?.[input.which];
  return key ? blobOrNone(deps.blobs, key) : undefined;
}

/** A stored artifact's bytes; none when the store no longer has it (removed by retention, say). */
async function blobOrNone(blobs: BlobStore, key: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    return new Uint8Array(await blobs.get(key));
  } catch (err) {
    if (err instanceof BlobNotFoundError) return undefined;
    throw err;
  }
}

/** One image of a run test's visual difference at a step (`which`: diff, actual or baseline), read by key. */
export async function runTestVisualImage(
  deps: ServiceContext<'blobs'>,
  input: { projectId: string; runShortId: string; runTestId: string; stepIndex: number; which: VisualImage },
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const row = await runTestArtifacts(deps.db, input.projectId, input.runShortId, input.runTestId);
  const found = row?.evidence?.visualChanges?.find((v) => v.stepIndex === input.stepIndex);
  // A row from before every difference was listed: its one diff and image are its failing check's.
  const legacy = !row?.evidence?.visualChanges && row?.failed_step_index === input.stepIndex && row.evidence;
  const key = found
    ? found[`${input.which}Key`]
    : legacy && input.which !== 'baseline'
      ? legacy[`${input.which}Key`]
      : undefined;
  return key ? blobOrNone(deps.blobs, key) : undefined;
}

export type VisualImage = 'diff' | 'actual' | 'baseline';

/** The test plans page: each plan with what it runs. */
export const dashboardPlans = ({ db }: ServiceContext, projectId: string) => loadPlanSummaries(db, projectId);

export interface PlanPage {
  plan: Omit<TestPlanView, 'notifications' | 'applications'>;
  applications: {
    applicationShortId: string;
    applicationName: string;
    environmentShortId: string;
    environmentName: string;
    environmentUrl: string | null;
  }[];
  schedules: PlanScheduleView[];
  notifications: {
    email: { recipients: string[]; notifyOn: NotifyOn } | null;
    slack: { webhookHost: string; channel: string | null; notifyOn: NotifyOn } | null;
  };
}

/** A Slack-compatible webhook URL is a credential (whoever has it can post to the channel): the page names its host only. */
function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'a webhook';
  }
}

/** The plan page's data; undefined when the project has no such plan. */
export async function loadPlan(
  deps: ServiceContext<'temporal' | 'logger'>,
  projectId: string,
  planShortId: string,
): Promise<PlanPage | undefined> {
  const plan = await getTestPlan(deps.db, projectId, planShortId);
  if (!plan) return undefined;
  const [environments, schedules] = await Promise.all([
    environmentNames(
      deps.db,
      projectId,
      plan.applications.map((a) => a.environmentShortId),
    ),
    listPlanSchedules(deps, plan.id),
  ]);
  const { id: _id, notifications, applications, ...rest } = plan;
  return {
    plan: rest,
    applications: applications.map((a) => {
      const env = environments.get(a.environmentShortId);
      return {
        applicationShortId: a.applicationShortId,
        applicationName: env?.applicationName ?? a.applicationShortId,
        environmentShortId: a.environmentShortId,
        environmentName: env?.name ?? a.environmentShortId,
        environmentUrl: env?.url ?? null,
      };
    }),
    schedules,
    notifications: {
      email: notifications.email,
      slack: notifications.slack && {
        webhookHost: webhookHost(notifications.slack.webhookUrl),
        channel: notifications.slack.channel,
        notifyOn: notifications.slack.notifyOn,
      },
    },
  };
}

/** A page of the project's test cases; an application the project does not have matches nothing. */
export async function dashboardTestCases(
  { db }: ServiceContext,
  projectId: string,
  filter: TestCaseFilter,
  page: { limit: number; offset: number },
) {
  return (await listTestCases(db, projectId, filter, page)) ?? { testCases: [], total: 0 };
}

export interface TestCasePageData {
  testCase: TestCaseView;
  names: Map<string, string>;
  dependents: { id: string; name: string }[];
  proposals: HealProposal[];
  /** What its burn-ins' LLM calls came to. */
  usage: UsageTotals;
  /** How its last runs went. */
  trend: Trend;
}

/** Everything the test case page shows, from the project only (undefined: no such test case there). */
export async function loadTestCasePage(
  { db }: ServiceContext,
  projectId: string,
  id: string,
): Promise<TestCasePageData | undefined> {
  const testCase = await getTestCase(db, projectId, id);
  if (!testCase) return undefined;
  const dependencyIds = [
    ...(testCase.resumeFromDependencyProjectTestCaseId ? [testCase.resumeFromDependencyProjectTestCaseId] : []),
    ...testCase.waitForDependenciesProjectTestCaseIds,
  ];
  const [records, dependents, proposals, usage, trend] = await Promise.all([
    findTestCaseRecords(db, projectId, dependencyIds),
    findDependents(db, projectId, id),
    listHealProposals({ db }, projectId, id),
    usageTotals({ db }, projectId, { testCaseId: testCase.id, purpose: 'burn_in' }),
    testCaseTrend({ db }, projectId, testCase.id),
  ]);
  return { testCase, names: new Map(records.map((r) => [r.id, r.name])), dependents, proposals, usage, trend };
}
