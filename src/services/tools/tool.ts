// What a tool is: one entry per tool, from which the chat's model tool list, the activity dispatch, the turn
// workflow's routing (through `runs`) and the MCP tools are derived. Arguments are validated with zod schemas
// built from the REST API's, so a tool refuses what the matching route refuses.
import { z } from 'zod';
import type { BrowserPool } from '../../browser/context/pool.js';
import type { ChatToolRuns } from '../../domain/chat.js';
import { formatZodError } from '../../schemas/common.js';
import type { ServiceContext } from '../context.js';

/** A refusal the model (or an MCP client) can act on: answered as text, never a failure of the activity. */
export class ChatToolError extends Error {
  override name = 'ChatToolError';
}

/**
 * What a tool's service function gets besides its arguments: the service context (with the dashboard's base URL,
 * for links in answers), so a tool hands it to the services it calls as it is.
 */
export interface ToolContext extends ServiceContext<'appUrl'> {
  projectId: string;
  /** The conversation the tool runs in; absent over MCP. */
  chatId?: string;
  browsers?: BrowserPool;
  signal?: AbortSignal;
  /** Progress for the activity's heartbeat (a browser tool reports the page it is on). */
  progress?: (details: Record<string, unknown>) => void;
}

/** The rows a tool that starts a child workflow writes first; the workflow starts the child from them. */
export interface ToolRows {
  burnIn: { testCaseId: string; name: string };
  planRun: { runId: string; runShortId: string; testCount: number };
}

type Handler<I, R> = (ctx: ToolContext, input: I, key: string | undefined) => Promise<R>;

/** What the API process hands an MCP tool: its service context (src/api/context.ts's ApiServices is one). */
export type McpServices = ServiceContext<
  'temporal' | 'blobs' | 'logger' | 'appUrl' | 'runConcurrency' | 'urlTtlSeconds'
>;

/** An MCP call's context: the API's service context, the caller's project and the call's abort signal. */
export type McpToolContext = ToolContext & McpServices;

/** An MCP answer: the route's JSON shape (a program reads it), or text. */
export type McpHandler<I> = (ctx: McpToolContext, input: I) => Promise<object | string>;

/**
 * How MCP serves a tool. Without `answer` it answers the chat handler's text. An MCP client is a program that knows
 * the REST API, so a tool may answer the route's JSON instead (`answer`), and take the route's whole input where the
 * model gets a shorter form (`mcpForm`); `description` likewise, when the two audiences need other words.
 */
export type McpPart<I = never> = { readOnly?: boolean; description?: string } & (
  { input?: undefined; answer?: McpHandler<I> } | { input: z.ZodObject; answer: McpHandler<never> }
);

/** An MCP input of its own with the answer that reads it: the pair stays type-checked. */
export const mcpForm = <S extends z.ZodObject>(input: S, answer: McpHandler<z.output<S>>) => ({
  input,
  answer: answer as McpHandler<never>,
});

interface ToolBase<S extends z.ZodObject> {
  name: string;
  description: string;
  input: S;
  /** Also served over MCP (src/mcp/server.ts), in the API process, without a conversation. */
  mcp?: McpPart<z.output<S>>;
}

/**
 * One tool. `runs` says how the turn workflow runs it: `activity` and `browser` answer text from the handler;
 * `burnIn` and `planRun` write rows in an activity (idempotent per `key`, the tool call's) and then run that child.
 */
export type Tool<S extends z.ZodObject = z.ZodObject> = ToolBase<S> &
  (
    | {
        runs: 'activity';
        handler: Handler<z.output<S>, string>;
      }
    | { runs: 'browser'; handler: Handler<z.output<S>, string> }
    | { runs: 'burnIn'; handler: Handler<z.output<S>, ToolRows['burnIn']> }
    | { runs: 'planRun'; handler: Handler<z.output<S>, ToolRows['planRun']> }
    // Served over MCP only (what needs a program waiting on it, or the REST shapes): the chat never sees it.
    | { runs: 'mcp'; mcp: McpPart<z.output<S>> & { answer: McpHandler<z.output<S>> } }
  );

/** The tools that run one way. */
export type ToolThatRuns<K extends ChatToolRuns | 'mcp'> = K extends ChatToolRuns | 'mcp'
  ? Extract<Tool, { runs: K }>
  : never;

/** The tools the chat model is offered. */
export type ChatTool = ToolThatRuns<ChatToolRuns>;

/** Keeps the input schema's type attached to its handler. */
export const defineTool = <S extends z.ZodObject>(tool: Tool<S>): Tool => tool as unknown as Tool;

/** The model's tool list entry: name, description and the input as JSON Schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export function toolSpec(tool: Tool): ToolSpec {
  const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
  return { name: tool.name, description: tool.description, parameters: { ...parameters, additionalProperties: false } };
}

/**
 * The arguments as the tool's schema reads them. Models send null or '' for an optional field they leave out:
 * both mean absent, as they always did here. A refusal names the fields as the REST API's 400s do.
 */
export function parseToolArgs(tool: Tool, args: Record<string, unknown>): Record<string, unknown> {
  const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== ''));
  const parsed = tool.input.safeParse(given);
  if (parsed.success) return parsed.data;
  throw new ChatToolError(formatZodError(parsed.error));
}

export type { ChatToolRuns };
