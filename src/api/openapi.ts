import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { AppEnv } from './context.js';
import type { JsonText } from '../db/queries/project-lists.js';
import { formatZodError } from '../schemas/common.js';

export const ErrorSchema = z
  .object({ message: z.string().openapi({ example: 'name: Too small: expected string to have >=1 characters' }) })
  .openapi('Error');

const error = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

/** Spread into every authenticated route's `responses`. */
export const errorResponses = {
  400: error('Validation error, malformed JSON or invalid parameters'),
  401: error('Missing or invalid API token'),
  403: error('Token not valid for this operation, or organization suspended'),
  404: error('Not found (also for ids that belong to another project)'),
  413: error('Request body larger than PROCTOR_MAX_BODY_BYTES (1 MiB by default)'),
  415: error('Content-Type is not application/json'),
  500: error('Server error; the message carries the request id'),
} as const;

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const bearerSecurity = [{ bearerAuth: [] as string[] }];

export type OpenApiApp = OpenAPIHono<AppEnv>;

/** Answers with JSON serialised earlier, exactly as `c.json(value, status)` would, typed the same. */
export const sendJsonText = <T, Status extends 200 | 201 | 202 = 200>(
  c: Context,
  text: JsonText<T>,
  status: Status = 200 as Status,
) => c.body(text, status, { 'Content-Type': 'application/json' }) as unknown as TypedResponse<T, Status, 'json'>;

export function newRouter(): OpenApiApp {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

// zod failures become `{ message }` naming the field, like every other error.
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError },
  c: { json: (body: { message: string }, status: 400) => Response },
): Response | undefined {
  if (result.success) return undefined;
  return c.json({ message: formatZodError(result.error) }, 400);
}

/** What the request guards enforce on every /v1 request, stated once in the document's description. */
export const requestRules =
  'Every request: no NUL character (U+0000) in any string, object key, path or query parameter (400 naming the field); ' +
  'JSON bodies up to `PROCTOR_MAX_BODY_BYTES` (1 MiB by default; 413 above it; `POST /v1/chat/change-review` and `POST /v1/mcp`, which carry raw diffs, ' +
  'up to `PROCTOR_MAX_DIFF_BYTES`, 16 MiB by default); a PATCH needs a body (400 without one).';

const noNul = { pattern: '^[^\\u0000]*$' };
const nulFreeJsonRef = { $ref: '#/components/schemas/NulFreeJson' };
// Any JSON value with no NUL in a string or key at any depth. `pattern`, `propertyNames`, `items` and
// `additionalProperties` each apply only to their own type, so one schema without a `type` says it.
const nulFreeJson = {
  description: 'Any JSON value without a NUL character (U+0000) in any string or key, at any depth',
  ...noNul,
  propertyNames: noNul,
  items: nulFreeJsonRef,
  additionalProperties: nulFreeJsonRef,
};

/**
 * Serves the OpenAPI 3.1 document, built once on first request (all routes are registered by then), with
 * what the guard enforces on every object stated: keys are NUL-free, and so is whatever an unknown field
 * (ignored by the routes, but read by the guard) holds.
 */
export function serveOpenApiDocument(
  app: OpenApiApp,
  path: string,
  config: Parameters<OpenApiApp['getOpenAPI31Document']>[0],
): void {
  let document: unknown;
  app.get(path, (c) => c.json((document ??= withNulFreeObjects(app.getOpenAPI31Document(config)))));
}

function withNulFreeObjects(document: ReturnType<OpenApiApp['getOpenAPI31Document']>) {
  const copy = nulFreeKeys(document);
  copy.components = { ...copy.components, schemas: { ...copy.components?.schemas, NulFreeJson: nulFreeJson } };
  return copy;
}

function nulFreeKeys<T>(node: T): T {
  if (Array.isArray(node)) return node.map(nulFreeKeys) as T;
  if (!node || typeof node !== 'object') return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, nulFreeKeys(value)]));
  if (copy.type === 'object' && copy.properties) {
    copy.propertyNames = noNul;
    copy.additionalProperties ??= nulFreeJsonRef;
  }
  return copy as T;
}
