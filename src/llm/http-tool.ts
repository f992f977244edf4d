// The burn-in agent's `http_request` tool: an API call to seed or check data, recorded as a step that replays
// with no model. The arguments become an HttpStep as the model gave them, `{{NAME}}` references kept.
import type OpenAI from 'openai';
import { httpMethods, httpStepProblem, type HttpStep } from '../domain/http-step.js';
import type { Step } from '../domain/steps.js';

const pathItem = (extra: Record<string, unknown>, required: string[]) => ({
  type: 'array',
  items: {
    type: 'object',
    properties: { path: { type: 'string' }, ...extra },
    required: ['path', ...required],
    additionalProperties: false,
  },
});

export const httpRequestTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'http_request',
    // Said once here rather than as a comment per parameter (each costs its own line in every step's prompt).
    description:
      "Call the app's HTTP API to seed or check data. url: a path, e.g. /api/notes; body: JSON text; expectStatus: default any 2xx; expectJson asserts and save keeps (as {{name}}; secret: hide it) values at JSON paths like $.items[0].id. {{NAME}} types a config or saved variable",
    parameters: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: [...httpMethods] },
        url: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { type: 'string' },
        expectStatus: { type: 'integer' },
        expectJson: pathItem({ equals: { type: 'string' } }, ['equals']),
        save: pathItem({ name: { type: 'string' }, secret: { type: 'boolean' } }, ['name']),
        description: { type: 'string' },
      },
      required: ['method', 'url', 'description'],
      additionalProperties: false,
    },
  },
};

/** The step the tool call records, or an Error the agent reads in its history. */
export function httpStepFromArgs(args: Record<string, unknown>, description: string, baseUrl: string): Step {
  const pairs = (value: unknown, key: 'equals' | 'name') =>
    (Array.isArray(value) ? value : [])
      .filter(
        (v): v is Record<string, unknown> =>
          typeof v === 'object' && v !== null && typeof v.path === 'string' && v[key] !== undefined,
      )
      .map((v) => ({
        path: v.path as string,
        [key]: typeof v[key] === 'string' ? (v[key] as string) : JSON.stringify(v[key]),
      }));
  const headers =
    typeof args.headers === 'object' && args.headers !== null
      ? Object.fromEntries(Object.entries(args.headers).map(([k, v]) => [k, String(v)]))
      : undefined;
  const http: HttpStep = {
    method: String(args.method ?? 'GET').toUpperCase() as HttpStep['method'],
    url: relativeUrl(typeof args.url === 'string' ? args.url : '', baseUrl),
    ...(headers && Object.keys(headers).length > 0 && { headers }),
    ...(typeof args.body === 'string' && { body: args.body }),
    ...(typeof args.body === 'object' && args.body !== null && { body: JSON.stringify(args.body) }),
    ...(typeof args.expectStatus === 'number' && { status: args.expectStatus }),
    ...(Array.isArray(args.expectJson) && { json: pairs(args.expectJson, 'equals') as HttpStep['json'] }),
    ...(Array.isArray(args.save) && { save: saves(args.save) }),
  };
  const problem = httpStepProblem(http);
  if (problem) throw new Error(`http_request: ${problem}`);
  return { action: 'http_request', http, description };
}

/**
 * The environment's own URLs as paths, so the step runs against any environment; by text, since URL parsing
 * would percent-encode the `{{NAME}}` references that are resolved only when the step runs.
 */
function relativeUrl(url: string, baseUrl: string): string {
  const origin = URL.canParse(baseUrl) ? new URL(baseUrl).origin : undefined;
  return origin && url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

/** What the agent's history says of a recorded http_request: the call and the variables it saved. */
export function httpSummary(step: Step): string {
  const h = step.http;
  if (!h) return '';
  const saved = (h.save ?? []).map((s) => `{{${s.name}}}`);
  return ` ${h.method} ${h.url}${saved.length ? ` (saved ${saved.join(', ')})` : ''}`;
}

function saves(raw: unknown[]): NonNullable<HttpStep['save']> {
  return raw
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
    .filter((v) => typeof v.path === 'string' && typeof v.name === 'string')
    .map((v) => ({ name: v.name as string, path: v.path as string, ...(v.secret === true && { secret: true }) }));
}
