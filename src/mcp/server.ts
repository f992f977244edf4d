import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from '@hono/zod-openapi';
import type { AppDeps, Caller } from '../api/context.js';
import { ApiError } from '../api/errors.js';
import { formatZodError } from '../api/openapi.js';
import { CreateTestCase, ListQuery, Params as TestCaseParams } from '../schemas/test-cases.js';
import { ChatParams, ChatQuery, SendMessage } from '../schemas/chat.js';
import { shortId, uuid } from '../schemas/common.js';
import { Rerun, RunParams, RunQuery, StartRun } from '../schemas/runs.js';
import { getRunView, rerunSelection, runDeps, runRef, type RunMetadata } from '../services/run-views.js';
import { ChangeReviewRequest } from '../schemas/change-review.js';
import { listApplications } from '../services/applications.js';
import type { Logger } from '../logger.js';
import { getConversation, type ChatDeps } from '../services/chat.js';
import { sendAndWait } from '../services/chat-wait.js';
import { DomainError } from '../domain/errors.js';
import { rerun, runTestCases, runTestPlan } from '../services/runs.js';
import { createTestCase, findTestCases, showTestCase, testCaseWithProposalsView } from '../services/test-cases.js';
import { changeReviewRequestOf, createChangeReview, getChangeReview } from '../services/change-reviews.js';
import { ChatToolError, mcpTools } from '../services/tools/index.js';

/** Who is calling and with what: one MCP request's worth, as the REST handlers have it. */
export interface McpContext {
  deps: AppDeps;
  caller: Caller;
  requestId: string;
  logger: Logger;
  /** Aborted when the HTTP client goes away: a waiting tool stops waiting. */
  signal?: AbortSignal;
}

// MCP clients time a request out after 60 s by default (the SDK's DEFAULT_REQUEST_TIMEOUT_MSEC).
const maxChatWaitSeconds = 55;

const RunTestCases = StartRun.omit({ testPlanShortId: true })
  .extend({ testCaseIds: z.array(uuid()).min(1).max(1000).describe('Test case ids (UUIDs) to run; their dependencies join the run') })
  .openapi('RunTestCases');

const Chat = SendMessage.extend({
  chatConversationShortId: shortId('chat').optional().describe('Continue this conversation; absent: start a new one (then applicationOverrides apply)'),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(maxChatWaitSeconds)
    .default(45)
    .describe(`How long to wait for the reply to end (at most ${maxChatWaitSeconds} s); an unfinished reply is answered as it stands, with finished false`),
});

// An MCP tool's input is one JSON object, so the route's two request forms (a pull request, a raw diff) are offered
// as one object whose mode says which fields apply; the handler validates with the route's own union.
const [PrReview, RawReview] = ChangeReviewRequest.options;
const StartChangeReview = PrReview.extend({
  mode: z.enum(['pr', 'rawChanges']).describe('pr: review prUrl (with vcsProviderId); rawChanges: review the given changes'),
  prUrl: PrReview.shape.prUrl.optional(),
  vcsProviderId: PrReview.shape.vcsProviderId.optional(),
  changes: RawReview.shape.changes.optional(),
});

/** A refusal the caller can act on, in the REST API's words; anything else is a server fault. */
function refusalOf(err: unknown): string | undefined {
  if (err instanceof DomainError || err instanceof ApiError || err instanceof ChatToolError) return err.message;
  return undefined;
}

/**
 * The MCP tools: each calls the same service as its REST route, with the caller's project, and answers the
 * route's JSON shape; input schemas are the routes' own zod schemas. A refused call is a tool error carrying
 * the message the route would have sent, and changes nothing.
 */
export function createMcpServer(ctx: McpContext): McpServer {
  const { deps } = ctx;
  const { projectId } = ctx.caller;
  const server = new McpServer({ name: 'proctor', version: '1.0.0' });
  const chatDeps: ChatDeps = { db: deps.db, temporal: deps.temporal, appUrl: deps.config.appUrl };

  const answer = async (tool: string, work: () => Promise<object | string>): Promise<CallToolResult> => {
    try {
      const body = await work();
      // A registry tool answers the text the chat model reads; the others answer their route's JSON.
      if (typeof body === 'string') return { content: [{ type: 'text', text: body }] };
      return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }], structuredContent: body as Record<string, unknown> };
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal !== undefined) return { isError: true, content: [{ type: 'text', text: refusal }] };
      ctx.logger.error('MCP tool failed', { requestId: ctx.requestId, tool, err });
      return { isError: true, content: [{ type: 'text', text: `Internal server error (request id ${ctx.requestId})` }] };
    }
  };
  const refuse = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });
  const readOnly = { readOnlyHint: true };

  server.registerTool(
    'list_applications',
    { description: 'List the applications of the project (web, ios, android)', inputSchema: z.object({}), annotations: readOnly },
    () => answer('list_applications', async () => ({ applications: await listApplications(deps.db, projectId) })),
  );

  server.registerTool(
    'list_test_cases',
    { description: 'List test cases, filtered by application, labels (all must match) or enabled state', inputSchema: ListQuery, annotations: readOnly },
    (args) => answer('list_test_cases', () => findTestCases(deps, { ...args, projectId })),
  );

  server.registerTool(
    'get_test_case',
    {
      description: 'Show one test case: goal, expected result, recorded steps, generation status, dependencies, pending heal proposals',
      inputSchema: TestCaseParams,
      annotations: readOnly,
    },
    (args) => answer('get_test_case', async () => testCaseWithProposalsView(await showTestCase(deps, { projectId, testCaseId: args.testCaseId }))),
  );

  server.registerTool(
    'create_test_case',
    { description: 'Create a test case from a goal; the agent then records its steps (generationStatus GENERATING until done)', inputSchema: CreateTestCase },
    (args) =>
      answer('create_test_case', async () => {
        const created = await createTestCase({ db: deps.db, temporal: deps.temporal, logger: ctx.logger }, { ...args, projectId });
        return { success: true, testCase: { ...created, url: `${deps.config.appUrl}/test-cases/${created.id}` } };
      }),
  );

  server.registerTool(
    'run_test_plan',
    { description: "Start a run of a test plan (the project's default plan when none is named), optionally with per-application environment overrides", inputSchema: StartRun },
    (args) =>
      answer('run_test_plan', async () => {
        const run = await runTestPlan(runDeps(deps), { projectId, testPlanShortId: args.testPlanShortId, applications: args.applications, meta: args satisfies RunMetadata });
        return { success: true, run: { ...runRef(deps.config.appUrl, run), testPlan: { name: run.plan.name, shortId: run.plan.shortId } } };
      }),
  );

  server.registerTool(
    'run_test_cases',
    {
      description: 'Start a run of the given test cases (disabled ones too, once their steps are recorded) plus their dependencies, without a plan',
      inputSchema: RunTestCases,
    },
    (args) =>
      answer('run_test_cases', async () => {
        const run = await runTestCases(runDeps(deps), { projectId, testCaseIds: args.testCaseIds, applications: args.applications, meta: args satisfies RunMetadata });
        return { success: true, run: runRef(deps.config.appUrl, run) };
      }),
  );

  server.registerTool(
    'get_run',
    { description: 'Status and result of a run; testCases "failed" or "all" adds the per-test results', inputSchema: RunParams.extend(RunQuery.shape), annotations: readOnly },
    (args) =>
      answer('get_run', async () => {
        return getRunView(deps, { projectId, runShortId: args.shortId, tests: args.testCases });
      }),
  );

  server.registerTool(
    'rerun_run',
    {
      description: 'Rerun a run as a new run: failedOnly, or specific projectTestCaseIds (with their dependencies), or everything',
      inputSchema: RunParams.extend(Rerun.shape),
    },
    ({ shortId: runShortId, ...body }) => {
      // The route's own schema, refinement included (failedOnly and projectTestCaseIds exclude each other).
      const parsed = Rerun.safeParse(body);
      if (!parsed.success) return refuse(formatZodError(parsed.error));
      return answer('rerun_run', async () => {
        const run = await rerun(runDeps(deps), { projectId, runShortId, selection: rerunSelection(parsed.data) });
        return { success: true, run: runRef(deps.config.appUrl, run) };
      });
    },
  );

  server.registerTool(
    'chat',
    {
      description:
        'Send a message to the Proctor assistant (it lists, creates and runs tests) and wait for its reply. A new conversation unless ' +
        'chatConversationShortId is given. When the reply has not ended within waitSeconds, the answer has finished false and the text so far: ' +
        'call get_chat with the chatConversationShortId to read the rest.',
      inputSchema: Chat,
    },
    (args, extra) =>
      answer('chat', async () => {
        const { chatShortId, ...sent } = await sendAndWait(chatDeps, {
          projectId,
          message: args.message,
          chatShortId: args.chatConversationShortId,
          applicationOverrides: args.applicationOverrides,
          waitMs: args.waitSeconds * 1000,
          signal: ctx.signal ? AbortSignal.any([extra.signal, ctx.signal]) : extra.signal,
        });
        return { chatConversationShortId: chatShortId, ...sent };
      }),
  );

  server.registerTool(
    'get_chat',
    { description: 'A conversation with its most recent messages, newest first (poll it for a reply that chat did not wait out)', inputSchema: ChatParams.extend(ChatQuery.shape), annotations: readOnly },
    (args) => answer('get_chat', () => getConversation(chatDeps, { projectId, chatShortId: args.chatConversationShortId, limit: args.limit })),
  );

  server.registerTool(
    'start_change_review',
    {
      description:
        'Review a change (a pull/merge request, or a raw diff) in a conversation of its own: the affected tests (and new ones where coverage is ' +
        'missing) run on the given preview environments, and the review ends with a verdict (Approved, Changes Requested or Comment). ' +
        'Read it with get_change_review.',
      inputSchema: StartChangeReview,
    },
    (args) => {
      const parsed = ChangeReviewRequest.safeParse(args);
      if (!parsed.success) return refuse(formatZodError(parsed.error));
      return answer('start_change_review', () => createChangeReview(chatDeps, projectId, changeReviewRequestOf(parsed.data), {}));
    },
  );

  server.registerTool(
    'get_change_review',
    { description: "A change review's state, verdict, summary and per-test results", inputSchema: ChatParams, annotations: readOnly },
    (args) => answer('get_change_review', () => getChangeReview(chatDeps, { projectId, chatShortId: args.chatConversationShortId })),
  );

  // The registry's tools marked for MCP (src/services/tools): same schema, same service function as in the chat.
  const toolContext = { db: deps.db, projectId, appUrl: deps.config.appUrl };
  for (const tool of mcpTools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.input, ...(tool.mcp?.readOnly && { annotations: readOnly }) },
      (args: Record<string, unknown>) => answer(tool.name, () => tool.handler(toolContext, args, undefined)),
    );
  }

  return server;
}
