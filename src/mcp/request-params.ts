// The MCP SDK parses a request's params with its own schemas inside the handler and reports a mismatch as
// -32603 Internal error, with zod's issue list as the message (found by test/api/fuzz-mcp.test.ts). Bad params
// are the client's mistake, not a server fault: checked here first and answered -32602 Invalid params, naming
// the field, before the request reaches the server.
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** The requests the server handles; any other method is the SDK's own "Method not found". */
const requestSchemas: Record<
  string,
  {
    safeParse(value: unknown): {
      success: boolean;
      error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
    };
  }
> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

export interface JsonRpcRequestIn {
  method: string;
  id?: string | number;
  params?: Record<string, unknown>;
}

/** The JSON-RPC error answer for a request whose params its method's schema refuses; undefined when they fit. */
export function invalidParamsAnswer(
  message: JsonRpcRequestIn,
): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string } } | undefined {
  const schema = requestSchemas[message.method];
  // A notification gets no answer, whatever it carries.
  if (message.id === undefined || !schema) return undefined;
  const parsed = schema.safeParse({
    method: message.method,
    ...(message.params !== undefined && { params: message.params }),
  });
  if (parsed.success) return undefined;
  const issue = parsed.error?.issues[0];
  const where = issue?.path.map(String).join('.') || 'params';
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: ${where}: ${issue?.message ?? 'does not match the method'}`,
    },
  };
}
