// What MCP answers where it differs from the chat: the REST route's JSON, from the route's service, with the route's
// input. An MCP client is a program that knows the REST API; the chat model reads text (src/services/chat-tools.ts).
import { z } from 'zod';
import { ChatParams, ChatQuery, SendMessage } from '../../schemas/chat.js';
import { ChangeReviewRequest } from '../../schemas/change-review.js';
import { formatZodError, shortId, uuid } from '../../schemas/common.js';
import { Rerun, RunParams, RunQuery, StartRun } from '../../schemas/runs.js';
import { CreateTestCase } from '../../schemas/test-cases.js';
import { listApplications } from '../applications.js';
import { changeReviewRequestOf, createChangeReview, getChangeReview } from '../change-reviews.js';
import { getConversation } from '../chat.js';
import { sendAndWait } from '../chat-wait.js';
import { getRunView, rerunSelection, runRef, type RunMetadata } from '../run-views.js';
import { rerun, runTestCases, runTestPlan } from '../runs.js';
import { createTestCase } from '../test-cases.js';
import { findTestCases, showTestCase, testCaseWithProposalsView } from '../test-case-reads.js';
import { ChatToolError, type McpToolContext } from './tool.js';

/** The route's own schema where the MCP input cannot carry it (a union, a refinement): refused in its words. */
function parsedBy<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw new ChatToolError(formatZodError(parsed.error));
  return parsed.data;
}

export const listApplicationsAnswer = async (ctx: McpToolContext) => ({
  applications: await listApplications(ctx, ctx.projectId),
});

export const listTestCasesAnswer = (
  ctx: McpToolContext,
  args: { applicationShortId?: string; labels?: string; isEnabled?: 'true' | 'false'; limit: number; offset: number },
) => findTestCases(ctx, { ...args, projectId: ctx.projectId });

export const getTestCaseAnswer = async (ctx: McpToolContext, args: { testCaseId: string }) =>
  testCaseWithProposalsView(await showTestCase(ctx, { projectId: ctx.projectId, testCaseId: args.testCaseId }));

export async function createTestCaseAnswer(ctx: McpToolContext, args: z.output<typeof CreateTestCase>) {
  const created = await createTestCase(ctx, { ...args, projectId: ctx.projectId });
  return { success: true, testCase: { ...created, url: `${ctx.appUrl}/test-cases/${created.id}` } };
}

export const runTestPlanInput = StartRun;
export async function runTestPlanAnswer(ctx: McpToolContext, args: z.output<typeof StartRun>) {
  const run = await runTestPlan(ctx, {
    projectId: ctx.projectId,
    testPlanShortId: args.testPlanShortId,
    applications: args.applications,
    meta: args satisfies RunMetadata,
  });
  return {
    success: true,
    run: { ...runRef(ctx.appUrl, run), testPlan: { name: run.plan.name, shortId: run.plan.shortId } },
  };
}

export const runTestCasesInput = StartRun.omit({ testPlanShortId: true }).extend({
  testCaseIds: z
    .array(uuid())
    .min(1)
    .max(1000)
    .describe('Test case ids (UUIDs) to run; their dependencies join the run'),
});
export async function runTestCasesAnswer(ctx: McpToolContext, args: z.output<typeof runTestCasesInput>) {
  const run = await runTestCases(ctx, {
    projectId: ctx.projectId,
    testCaseIds: args.testCaseIds,
    applications: args.applications,
    meta: args satisfies RunMetadata,
  });
  return { success: true, run: runRef(ctx.appUrl, run) };
}

export const getRunInput = RunParams.extend(RunQuery.shape);
export const getRunAnswer = (ctx: McpToolContext, args: z.output<typeof getRunInput>) =>
  getRunView(ctx, { projectId: ctx.projectId, runShortId: args.shortId, tests: args.testCases });

export const rerunInput = RunParams.extend(Rerun.shape);
export async function rerunAnswer(ctx: McpToolContext, { shortId: runShortId, ...body }: z.output<typeof rerunInput>) {
  // The route's own schema, refinement included (failedOnly and projectTestCaseIds exclude each other).
  const selection = rerunSelection(parsedBy(Rerun, body));
  return {
    success: true,
    run: runRef(ctx.appUrl, await rerun(ctx, { projectId: ctx.projectId, runShortId, selection })),
  };
}

// MCP clients time a request out after 60 s by default (the SDK's DEFAULT_REQUEST_TIMEOUT_MSEC).
const maxChatWaitSeconds = 55;

export const chatInput = SendMessage.extend({
  chatConversationShortId: shortId('chat')
    .optional()
    .describe('Continue this conversation; absent: start a new one (then applicationOverrides apply)'),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(maxChatWaitSeconds)
    .default(45)
    .describe(
      `How long to wait for the reply to end (at most ${maxChatWaitSeconds} s); an unfinished reply is answered as it stands, with finished false`,
    ),
});
export async function chatAnswer(ctx: McpToolContext, args: z.output<typeof chatInput>) {
  const { chatShortId, ...sent } = await sendAndWait(ctx, {
    projectId: ctx.projectId,
    message: args.message,
    chatShortId: args.chatConversationShortId,
    applicationOverrides: args.applicationOverrides,
    waitMs: args.waitSeconds * 1000,
    signal: ctx.signal,
  });
  return { chatConversationShortId: chatShortId, ...sent };
}

export const getChatInput = ChatParams.extend(ChatQuery.shape);
export const getChatAnswer = (ctx: McpToolContext, args: z.output<typeof getChatInput>) =>
  getConversation(ctx, {
    projectId: ctx.projectId,
    chatShortId: args.chatConversationShortId,
    limit: args.limit,
  });

// An MCP tool's input is one JSON object, so the route's two request forms (a pull request, a raw diff) are offered
// as one object whose mode says which fields apply; the answer validates with the route's own union.
const [PrReview, RawReview] = ChangeReviewRequest.options;
export const startChangeReviewInput = PrReview.extend({
  mode: z
    .enum(['pr', 'rawChanges'])
    .describe('pr: review prUrl (with vcsProviderId); rawChanges: review the given changes'),
  prUrl: PrReview.shape.prUrl.optional(),
  vcsProviderId: PrReview.shape.vcsProviderId.optional(),
  changes: RawReview.shape.changes.optional(),
});
export const startChangeReviewAnswer = (ctx: McpToolContext, args: z.output<typeof startChangeReviewInput>) =>
  createChangeReview(ctx, ctx.projectId, changeReviewRequestOf(parsedBy(ChangeReviewRequest, args)), {});

export const getChangeReviewInput = ChatParams;
export const getChangeReviewAnswer = (ctx: McpToolContext, args: z.output<typeof ChatParams>) =>
  getChangeReview(ctx, { projectId: ctx.projectId, chatShortId: args.chatConversationShortId });
