// The `http_request` kind: an API call to seed or check data, recorded as a step that replays with no model,
// through the browser context's own API client (http-step.ts). The arguments become an HttpStep as the model gave
// them, `{{NAME}}` references kept.
import { z } from 'zod';
import { httpMethods, httpStepProblem, type HttpStep } from '../../domain/http-step.js';
import type { Step } from '../../domain/steps.js';
import { httpRequestStatement } from '../export/export-auth.js';
import { performHttpStep } from './http-step.js';
import { defineStepKind, parseStepArgs } from './kind.js';

// Models send numbers, objects and lower-case methods where text is asked for: each is read as the text it means.
const asText = (v: unknown) => (typeof v === 'string' || v === undefined ? v : JSON.stringify(v));
const text = z.preprocess(asText, z.string());
const headerTexts = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]))
    : v;

export const httpRequest = defineStepKind({
  tool: 'http_request',
  // Said once here rather than as a comment per parameter (each costs its own line in every step's prompt).
  description:
    "Call the app's HTTP API to seed or check data. url: a path, e.g. /api/notes; body: JSON text; expectStatus: default any 2xx; expectJson asserts and save keeps (as {{name}}; secret: hide it) values at JSON paths like $.items[0].id. {{NAME}} types a config or saved variable",
  args: z.object({
    method: z.preprocess(
      (v) => (typeof v === 'string' ? v.toUpperCase() : v),
      z.enum(httpMethods, {
        error: (issue) =>
          issue.input === undefined ? undefined : `http_request: method: one of ${httpMethods.join(', ')}`,
      }),
    ),
    url: z.string(),
    headers: z.preprocess(headerTexts, z.record(z.string(), z.string())).optional(),
    body: text.optional(),
    expectStatus: z.number().int().optional(),
    expectJson: z.array(z.object({ path: z.string(), equals: text })).optional(),
    save: z.array(z.object({ path: z.string(), name: z.string(), secret: z.boolean().optional() })).optional(),
  }),
  group: 'http',
  actions: ['http_request'],
  example: { method: 'post', url: '/api/notes', body: '{"title":"A"}', save: [{ path: '$.id', name: 'NOTE_ID' }] },
  toStep: (args, { description, baseUrl }) => {
    const http: HttpStep = {
      method: args.method,
      url: relativeUrl(args.url, baseUrl),
      ...(args.headers && Object.keys(args.headers).length > 0 && { headers: args.headers }),
      ...(args.body !== undefined && { body: args.body }),
      ...(args.expectStatus !== undefined && { status: args.expectStatus }),
      ...(args.expectJson && { json: args.expectJson }),
      ...(args.save && {
        save: args.save.map((s) => ({ name: s.name, path: s.path, ...(s.secret === true && { secret: true }) })),
      }),
    };
    const problem = httpStepProblem(http);
    if (problem) throw new Error(`http_request: ${problem}`);
    return { action: 'http_request', http, description };
  },
  perform: async ({ page, step, opts }) => void (await performHttpStep(page, step, opts)),
  exportStatement: (step, { valueExpression }) => httpRequestStatement(step, valueExpression),
});

/** The step a tool call records, or an Error the agent reads in its history. */
export function httpStepFromArgs(args: Record<string, unknown>, description: string, baseUrl: string): Step {
  const ctx = { description, baseUrl, timeoutMs: 0, page: undefined as never };
  return httpRequest.toStep(parseStepArgs(httpRequest, args), ctx) as Step;
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
