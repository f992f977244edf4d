import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiServices, Caller } from '../api/context.js';
import { ApiError } from '../api/errors.js';
import type { Logger } from '../logger.js';
import { DomainError } from '../domain/errors.js';
import { ChatToolError, mcpTools, type McpToolContext, type Tool } from '../services/tools/index.js';

/** Who is calling and with what: one MCP request's worth, as the REST handlers have it. */
export interface McpContext {
  /** The API's service context, handed to the tools as it is (with the request's logger). */
  services: ApiServices;
  caller: Caller;
  requestId: string;
  logger: Logger;
  /** Aborted when the HTTP client goes away: a waiting tool stops waiting. */
  signal?: AbortSignal;
}

/** A refusal the caller can act on, in the REST API's words; anything else is a server fault. */
function refusalOf(err: unknown): string | undefined {
  if (err instanceof DomainError || err instanceof ApiError || err instanceof ChatToolError) return err.message;
  return undefined;
}

/** What a tool answers over MCP: its MCP answer (the route's JSON), else the chat handler's text. */
function mcpAnswer(tool: Tool, ctx: McpToolContext, args: Record<string, unknown>): Promise<object | string> {
  if (tool.mcp?.answer) return tool.mcp.answer(ctx, args as never);
  if (tool.runs === 'activity') return tool.handler(ctx, args, undefined);
  throw new Error(`tool ${tool.name} has no MCP answer`);
}

/**
 * The MCP tools, every one from the tool registry (src/services/tools): each calls the same service as its REST
 * route (or the chat tool), with the caller's project. A refused call is a tool error carrying the message the
 * route would have sent, and changes nothing.
 */
export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer({ name: 'proctor', version: '1.0.0' });
  const services = { ...ctx.services, logger: ctx.logger };

  const answer = async (tool: Tool, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
    try {
      const context: McpToolContext = { ...services, projectId: ctx.caller.projectId, signal };
      const body = await mcpAnswer(tool, context, args);
      if (typeof body === 'string') return { content: [{ type: 'text', text: body }] };
      return {
        content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
        structuredContent: body as Record<string, unknown>,
      };
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal !== undefined) return { isError: true, content: [{ type: 'text', text: refusal }] };
      ctx.logger.error('MCP tool failed', { requestId: ctx.requestId, tool: tool.name, err });
      return {
        isError: true,
        content: [{ type: 'text', text: `Internal server error (request id ${ctx.requestId})` }],
      };
    }
  };

  for (const tool of mcpTools) {
    const mcp = tool.mcp!;
    server.registerTool(
      tool.name,
      {
        description: mcp.description ?? tool.description,
        inputSchema: mcp.input ?? tool.input,
        ...(mcp.readOnly && { annotations: { readOnlyHint: true } }),
      },
      (args: Record<string, unknown>, extra) =>
        answer(tool, args, ctx.signal ? AbortSignal.any([extra.signal, ctx.signal]) : extra.signal),
    );
  }
  return server;
}
