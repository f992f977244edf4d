import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from './context.js';

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

export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}
