// The tool registry: every tool the chat assistant (and, where marked, MCP) offers, one entry each. The chat's model
// tool list, the activities' dispatch, the turn workflow's routing and MCP's shared tools all read this list.
// Input fields are the REST API's own schemas (src/schemas), described for the model.
import { z } from 'zod';
import { shortId, uuid } from '../../schemas/common.js';
import { CreateTestCase, ListQuery, Params as TestCaseParams, resumeFrom } from '../../schemas/test-cases.js';
import { exploreTool } from '../chat-explore.js';
import { createRunTool, createTestCaseTool, getTestCaseTool, listApplicationsTool, listTestCasesTool, listTestPlansTool, runResultsTool } from '../chat-tools.js';
import { defineTool, toolSpec, type Tool, type ToolSpec, type ToolThatRuns } from './tool.js';

export const tools: readonly Tool[] = [
  defineTool({
    name: 'list_applications',
    description: 'Applications of the project with their environments (short ids, URLs).',
    input: z.object({}),
    runs: 'activity',
    handler: listApplicationsTool,
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
  }),
  defineTool({
    name: 'get_test_case',
    description: 'One test case: goal, expected result, recorded steps, dependencies.',
    input: z.object({ testCaseId: TestCaseParams.shape.testCaseId.describe('test case id (UUID)') }),
    runs: 'activity',
    handler: getTestCaseTool,
  }),
  defineTool({
    name: 'create_test_case',
    description: 'Create a test case from a goal; waits until its burn-in has recorded the steps (or failed).',
    input: z.object({
      applicationShortId: CreateTestCase.shape.applicationShortId.describe('app_… short id'),
      name: CreateTestCase.shape.name.describe('1-80 characters'),
      goal: CreateTestCase.shape.goal.describe('what the test must achieve'),
      expectedResult: CreateTestCase.shape.expectedResult.describe('how to tell it worked'),
      resumeFromTestCaseId: resumeFrom.optional().describe('id of a test case of the same application to continue from (e.g. a login test)'),
    }),
    runs: 'burnIn',
    handler: createTestCaseTool,
  }),
  defineTool({
    name: 'run_tests',
    description: "Run a test plan or given test cases (with their dependencies) on the conversation's environments; waits for the result.",
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
    name: 'explore_page',
    description: 'Open a URL in a browser (read-only) and describe the page: title, headings, links, forms.',
    input: z.object({ url: z.string().describe('http(s) URL'), goal: z.string().optional().describe('what to look for') }),
    runs: 'browser',
    handler: exploreTool,
  }),
];

const byName = new Map(tools.map((t) => [t.name, t]));

export const findTool = (name: string): Tool | undefined => byName.get(name);

/** What the chat model is offered: every tool, described with its JSON Schema. */
export const chatToolSpecs: readonly ToolSpec[] = tools.map(toolSpec);

/** The tools MCP serves beside its own (src/mcp/server.ts). */
export const mcpTools: readonly ToolThatRuns<'activity'>[] = tools.filter((t): t is ToolThatRuns<'activity'> => t.runs === 'activity' && t.mcp !== undefined);

export { ChatToolError, parseToolArgs, type Tool, type ToolContext, type ToolRows, type ToolSpec, type ToolThatRuns } from './tool.js';
