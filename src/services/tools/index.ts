// The tool registry: every tool the chat assistant (and, where marked, MCP) offers, one entry each. The chat's model
// tool list, the activities' dispatch, the turn workflow's routing and MCP's shared tools all read this list.
// Input fields are the REST API's own schemas (src/schemas), described for the model.
import { z } from 'zod';
import { shortId, uuid } from '../../schemas/common.js';
import { CreateTestCase, ListQuery, Params as TestCaseParams, resumeFrom } from '../../schemas/test-cases.js';
import { ChatParams } from '../../schemas/chat.js';
import { RunListQuery } from '../../schemas/runs.js';
import { exploreTool } from '../chat-explore.js';
import { discoveryMapTool, startDiscoveryTool, uncoveredTool } from '../discovery-tools.js';
import { CreateDiscovery, DiscoveryBudgetInput } from '../../schemas/discoveries.js';
import { listRunsTool } from '../chat-tools.js';
import {
  createRunTool,
  createTestCaseTool,
  getTestCaseTool,
  listApplicationsTool,
  listTestCasesTool,
  listTestPlansTool,
  runResultsTool,
} from '../chat-tools.js';
import * as mcp from './mcp-answers.js';
import { defineTool, mcpForm, toolSpec, type ChatTool, type Tool, type ToolSpec } from './tool.js';

export const tools: readonly Tool[] = [
  defineTool({
    name: 'list_applications',
    description: 'Applications of the project with their environments (short ids, URLs).',
    input: z.object({}),
    runs: 'activity',
    handler: listApplicationsTool,
    mcp: {
      readOnly: true,
      description: 'List the applications of the project (web, ios, android)',
      answer: mcp.listApplicationsAnswer,
    },
  }),
  defineTool({
    name: 'list_test_plans',
    description: 'Test plans of the project.',
    input: z.object({}),
    runs: 'activity',
    handler: listTestPlansTool,
    mcp: { readOnly: true },
  }),
  defineTool({
    name: 'list_test_cases',
    description: 'Test cases of the project, optionally of one application.',
    input: z.object({ applicationShortId: ListQuery.shape.applicationShortId.describe('app_… short id') }),
    runs: 'activity',
    handler: listTestCasesTool,
    mcp: {
      readOnly: true,
      description: 'List test cases, filtered by application, labels (all must match) or enabled state',
      ...mcpForm(ListQuery, mcp.listTestCasesAnswer),
    },
  }),
  defineTool({
    name: 'get_test_case',
    description: 'One test case: goal, expected result, recorded steps, dependencies.',
    input: z.object({ testCaseId: TestCaseParams.shape.testCaseId.describe('test case id (UUID)') }),
    runs: 'activity',
    handler: getTestCaseTool,
    mcp: {
      readOnly: true,
      description:
        'Show one test case: goal, expected result, recorded steps, generation status, dependencies, pending heal proposals',
      answer: mcp.getTestCaseAnswer,
    },
  }),
  defineTool({
    name: 'create_test_case',
    description: 'Create a test case from a goal; waits until its burn-in has recorded the steps (or failed).',
    input: z.object({
      applicationShortId: CreateTestCase.shape.applicationShortId.describe('app_… short id'),
      name: CreateTestCase.shape.name.describe('1-80 characters'),
      goal: CreateTestCase.shape.goal.describe('what the test must achieve'),
      expectedResult: CreateTestCase.shape.expectedResult.describe('how to tell it worked'),
      resumeFromTestCaseId: resumeFrom
        .optional()
        .describe('id of a test case of the same application to continue from (e.g. a login test)'),
    }),
    runs: 'burnIn',
    handler: createTestCaseTool,
    // Over MCP it answers at once (generationStatus GENERATING): a client polls get_test_case.
    mcp: {
      description:
        'Create a test case from a goal; the agent then records its steps (generationStatus GENERATING until done)',
      ...mcpForm(CreateTestCase, mcp.createTestCaseAnswer),
    },
  }),
  defineTool({
    name: 'run_tests',
    description:
      "Run a test plan or given test cases (with their dependencies) on the conversation's environments; waits for the result.",
    input: z.object({
      testPlanShortId: shortId('testPlan').optional().describe('pln_… short id'),
      testCaseIds: z.array(uuid()).max(1000).optional().describe('test case ids (UUIDs)'),
    }),
    runs: 'planRun',
    handler: createRunTool,
  }),
  defineTool({
    name: 'get_run_results',
    description: 'Status, result and per-test results of a run this conversation started.',
    input: z.object({ runShortId: shortId('run').describe('run_… short id') }),
    runs: 'activity',
    handler: runResultsTool,
  }),
  defineTool({
    name: 'list_runs',
    description: 'Runs of the project, newest first: status, result, test count, plan, trigger.',
    input: z.object({
      testPlanShortId: RunListQuery.shape.testPlanShortId.describe('only runs of this plan (pln_… short id)'),
      status: RunListQuery.shape.status.describe('only runs in this state'),
      limit: z.number().int().min(1).max(50).default(10).describe('how many (1-50)'),
    }),
    runs: 'activity',
    handler: listRunsTool,
    mcp: { readOnly: true },
  }),
  defineTool({
    name: 'explore_page',
    description: 'Open a URL in a browser (read-only) and describe the page: title, headings, links, forms.',
    input: z.object({
      url: z.string().describe('http(s) URL'),
      goal: z.string().optional().describe('what to look for'),
    }),
    runs: 'browser',
    handler: exploreTool,
  }),
  defineTool({
    name: 'start_discovery',
    description:
      'Start a discovery of a web application: Proctor explores it (links, menus, tabs; it submits nothing but searches) and maps its pages and forms. Answers at once with the discovery id.',
    input: z.object({
      applicationShortId: shortId('application').describe('app_… short id'),
      environmentShortId: CreateDiscovery.shape.environmentShortId.describe(
        "env_… short id (default: the application's default)",
      ),
      budget: z
        .object({
          pages: DiscoveryBudgetInput.shape.pages.describe('distinct URLs visited at most (default 200)'),
          actions: DiscoveryBudgetInput.shape.actions.describe('controls operated at most (default 1000)'),
          minutes: DiscoveryBudgetInput.shape.minutes.describe('minutes at most (default 30)'),
        })
        .optional()
        .describe('where it stops: whichever limit comes first'),
      intent: CreateDiscovery.shape.intent.describe('what to look at first, e.g. "the checkout"'),
    }),
    runs: 'activity',
    handler: startDiscoveryTool,
    mcp: {},
  }),
  defineTool({
    name: 'discovery_map',
    description:
      "A discovery's status and map (page patterns with their titles and forms, counts); by discoveryShortId, or the application's latest completed discovery.",
    input: z.object({
      discoveryShortId: shortId('discovery').optional().describe('disc_… short id'),
      applicationShortId: shortId('application').optional().describe('app_… short id (its latest completed discovery)'),
    }),
    runs: 'activity',
    handler: discoveryMapTool,
    mcp: { readOnly: true },
  }),
  defineTool({
    name: 'uncovered',
    description:
      'What the application has that no enabled test covers: the page patterns no test visits and the forms no test acts on, from its latest completed discovery.',
    input: z.object({ applicationShortId: shortId('application').describe('app_… short id') }),
    runs: 'activity',
    handler: uncoveredTool,
    mcp: { readOnly: true },
  }),
  defineTool({
    name: 'run_test_plan',
    description:
      "Start a run of a test plan (the project's default plan when none is named), optionally with per-application environment overrides",
    input: mcp.runTestPlanInput,
    runs: 'mcp',
    mcp: { answer: mcp.runTestPlanAnswer },
  }),
  defineTool({
    name: 'run_test_cases',
    description:
      'Start a run of the given test cases (disabled ones too, once their steps are recorded) plus their dependencies, without a plan',
    input: mcp.runTestCasesInput,
    runs: 'mcp',
    mcp: { answer: mcp.runTestCasesAnswer },
  }),
  defineTool({
    name: 'get_run',
    description: 'Status and result of a run; testCases "failed" or "all" adds the per-test results',
    input: mcp.getRunInput,
    runs: 'mcp',
    mcp: { readOnly: true, answer: mcp.getRunAnswer },
  }),
  defineTool({
    name: 'rerun_run',
    description:
      'Rerun a run as a new run: failedOnly, or specific projectTestCaseIds (with their dependencies), or everything',
    input: mcp.rerunInput,
    runs: 'mcp',
    mcp: { answer: mcp.rerunAnswer },
  }),
  defineTool({
    name: 'chat',
    description:
      'Send a message to the Proctor assistant (it lists, creates and runs tests) and wait for its reply. A new conversation unless ' +
      'chatConversationShortId is given. When the reply has not ended within waitSeconds, the answer has finished false and the text so far: ' +
      'call get_chat with the chatConversationShortId to read the rest.',
    input: mcp.chatInput,
    runs: 'mcp',
    mcp: { answer: mcp.chatAnswer },
  }),
  defineTool({
    name: 'get_chat',
    description:
      'A conversation with its most recent messages, newest first (poll it for a reply that chat did not wait out)',
    input: mcp.getChatInput,
    runs: 'mcp',
    mcp: { readOnly: true, answer: mcp.getChatAnswer },
  }),
  defineTool({
    name: 'start_change_review',
    description:
      'Review a change (a pull/merge request, or a raw diff) in a conversation of its own: the affected tests (and new ones where coverage is ' +
      'missing) run on the given preview environments, and the review ends with a verdict (Approved, Changes Requested or Comment). ' +
      'Read it with get_change_review.',
    input: mcp.startChangeReviewInput,
    runs: 'mcp',
    mcp: { answer: mcp.startChangeReviewAnswer },
  }),
  defineTool({
    name: 'get_change_review',
    description: "A change review's state, verdict, summary and per-test results",
    input: ChatParams,
    runs: 'mcp',
    mcp: { readOnly: true, answer: mcp.getChangeReviewAnswer },
  }),
];

/** The chat's tools: the model is offered these, the activities and the turn workflow run them. */
export const chatTools: readonly ChatTool[] = tools.filter((t): t is ChatTool => t.runs !== 'mcp');

const chatByName = new Map(chatTools.map((t) => [t.name, t]));

/** A chat tool by name (an MCP-only tool is not one). */
export const findTool = (name: string): ChatTool | undefined => chatByName.get(name);

/** What the chat model is offered: every chat tool, described with its JSON Schema. */
export const chatToolSpecs: readonly ToolSpec[] = chatTools.map(toolSpec);

/** What MCP serves (src/mcp/server.ts): every tool with an MCP part, in registry order. */
export const mcpTools: readonly Tool[] = tools.filter((t) => t.mcp !== undefined);

export {
  ChatToolError,
  parseToolArgs,
  type ChatTool,
  type McpServices,
  type McpToolContext,
  type Tool,
  type ToolContext,
  type ToolRows,
  type ToolSpec,
  type ToolThatRuns,
} from './tool.js';
