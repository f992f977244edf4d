import { createRoute, z } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { bearerSecurity, errorResponses, json, jsonBody, type OpenApiApp } from '../api/openapi.js';
import { createMcpServer } from './server.js';
import { invalidParamsAnswer } from './request-params.js';

// What a client sends in stateless mode: a request (with id) or a notification. It never answers a server request,
// since the server cannot make one without a session. Anything else is refused here with `{ message }`.
const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    method: z.string().min(1),
    id: z
      .union([z.string().max(200), z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER)])
      .optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .openapi('McpJsonRpcMessage');

const JsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('McpJsonRpcResponse');

/** Its body may be as large as a change review's: `start_change_review` carries a raw diff too (src/api/app.ts). */
export const mcpPath = '/v1/mcp';

const route = createRoute({
  method: 'post',
  path: mcpPath,
  tags: ['MCP'],
  security: bearerSecurity,
  summary: 'MCP server (streamable HTTP, stateless)',
  description:
    'JSON-RPC 2.0 over MCP streamable HTTP: `initialize`, `tools/list`, `tools/call`. Tools (from the tool registry): list_applications, list_test_plans, list_test_cases, ' +
    'get_test_case, create_test_case, run_test_plan, run_test_cases, get_run, rerun_run, chat (send a message and wait for the reply, ' +
    'at most 55 s), get_chat, start_change_review, get_change_review. Each tool calls the same operation as its REST route, with the same input schema, project scoping and ' +
    'error messages (a refused call is a tool result with `isError` true). Answers are JSON (never a stream). GET answers 405. ' +
    'The body may be up to `PROCTOR_MAX_DIFF_BYTES` (16 MiB by default), as for `POST /v1/chat/change-review`.',
  request: { body: jsonBody(JsonRpcMessage) },
  responses: {
    200: json(JsonRpcResponse, 'The JSON-RPC response'),
    202: { description: 'A notification was accepted' },
    ...errorResponses,
  },
});

/** `POST /v1/mcp`: a new server and transport per request, so nothing is kept between calls. */
export function registerMcp(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const refusal = invalidParamsAnswer(c.req.valid('json'));
    if (refusal) return c.json(refusal, 200);
    const server = createMcpServer({
      services: c.get('services'),
      caller: c.get('caller'),
      requestId: c.get('requestId'),
      logger: c.get('logger'),
      signal: c.req.raw.signal,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      // The route's validator already read the body; the transport takes it parsed. Answers are always JSON
      // (enableJsonResponse), so the streamable-HTTP Accept rule (JSON and event stream) is met on the client's behalf.
      const headers = new Headers(c.req.raw.headers);
      headers.set('accept', 'application/json, text/event-stream');
      const request = new Request(c.req.raw.url, { method: 'POST', headers });
      return (await transport.handleRequest(request, { parsedBody: c.req.valid('json') })) as never;
    } finally {
      await server.close();
    }
  });
}
