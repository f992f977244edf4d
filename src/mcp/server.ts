import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from '@hono/zod-openapi';
import { CreateTestCase, ListQuery, Params as TestCaseParams } from '../api/schemas/test-cases.js';
import { Rerun, StartRun } from '../api/routes/runs.js';
import { shortId } from '../api/schemas/common.js';

/** One REST call made on the MCP caller's behalf, with the caller's own token. */
export type Dispatch = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

/**
 * The MCP tools. Each is a REST operation called in-process with the caller's token, so a tool answers
 * exactly what the route would (same validation, project scoping, errors), and its input schema is the
 * route's own zod schema.
 */
export function createMcpServer(dispatch: Dispatch): McpServer {
  const server = new McpServer({ name: 'proctor', version: '1.0.0' });

  const result = async (call: Promise<{ status: number; body: unknown }>): Promise<CallToolResult> => {
    const { status, body } = await call;
    const text = JSON.stringify(body, null, 2);
    if (status >= 400) return { isError: true, content: [{ type: 'text', text: `HTTP ${status}: ${text}` }] };
    return { content: [{ type: 'text', text }], structuredContent: body as Record<string, unknown> };
  };

  const query = (params: Record<string, unknown>): string => {
    const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null);
    return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : '';
  };

  server.registerTool(
    'list_applications',
    { description: 'List the applications of the project (web, ios, android)', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    () => result(dispatch('GET', '/v1/applications')),
  );

  server.registerTool(
    'list_test_cases',
    { description: 'List test cases, filtered by application, labels (all must match) or enabled state', inputSchema: ListQuery, annotations: { readOnlyHint: true } },
    (args) => result(dispatch('GET', `/v1/test-cases${query(args)}`)),
  );

  server.registerTool(
    'get_test_case',
    { description: 'Show one test case: goal, expected result, recorded steps, generation status, dependencies', inputSchema: TestCaseParams, annotations: { readOnlyHint: true } },
    (args) => result(dispatch('GET', `/v1/test-cases/${encodeURIComponent(args.testCaseId)}`)),
  );

  server.registerTool(
    'create_test_case',
    { description: 'Create a test case from a goal; the agent then records its steps (generationStatus GENERATING until done)', inputSchema: CreateTestCase },
    (args) => result(dispatch('POST', '/v1/test-cases', args)),
  );

  server.registerTool(
    'run_test_plan',
    { description: "Start a run of a test plan (the project's default plan when none is named), optionally with per-application environment overrides", inputSchema: StartRun },
    (args) => result(dispatch('POST', '/v1/run', args)),
  );

  server.registerTool(
    'get_run',
    {
      description: 'Status and result of a run; testCases "failed" or "all" adds the per-test results',
      inputSchema: z.object({ shortId: shortId('run'), testCases: z.enum(['failed', 'all']).optional() }),
      annotations: { readOnlyHint: true },
    },
    (args) => result(dispatch('GET', `/v1/run/${encodeURIComponent(args.shortId)}${query({ testCases: args.testCases })}`)),
  );

  server.registerTool(
    'rerun_run',
    {
      description: 'Rerun a run as a new run: failedOnly, or specific projectTestCaseIds (with their dependencies), or everything',
      // The REST route still refuses failedOnly together with projectTestCaseIds.
      inputSchema: z.object({ shortId: shortId('run'), ...Rerun.shape }),
    },
    ({ shortId: run, ...body }) => result(dispatch('POST', `/v1/run/${encodeURIComponent(run)}`, body)),
  );

  return server;
}
