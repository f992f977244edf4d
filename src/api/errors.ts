import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SecretUnreadableError } from '../db/envelope.js';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';
import type { AppEnv } from './context.js';

/** Thrown anywhere in a handler; mapped to `{ message }` with its status by `onError`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (what: string): ApiError => new ApiError(404, `${what} not found`);
export const badRequest = (message: string): ApiError => new ApiError(400, message);

/** The one place a business rule's refusal becomes an HTTP status. */
const domainStatus: Record<DomainErrorKind, ContentfulStatusCode> = {
  NotFound: 404,
  Invalid: 400,
  Conflict: 409,
  Unavailable: 503,
  Exhausted: 429,
};

export function handleError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) return c.json({ message: err.message }, err.status);
  if (err instanceof DomainError) return c.json({ message: err.message }, domainStatus[err.kind]);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const message = err.message || (status === 400 ? 'Bad request' : 'Request failed');
    return c.json({ message: /malformed json/i.test(message) ? 'Malformed JSON in request body' : message }, status);
  }
  const fk = foreignKeyViolation(err);
  if (fk) return c.json({ message: fk }, 409);
  const requestId = c.get('requestId');
  if (err instanceof SecretUnreadableError) {
    // An operator's problem, not a crash: the answer names it (no stack, no secret), the log keeps the detail.
    c.get('logger').error('stored secrets unreadable', {
      requestId,
      method: c.req.method,
      path: c.req.path,
      message: err.message,
    });
    return c.json({ message: `${err.explanation} (request id ${requestId})` }, 500);
  }
  c.get('logger').error('unhandled error', { requestId, method: c.req.method, path: c.req.path, err });
  return c.json({ message: `Internal server error (request id ${requestId})` }, 500);
}

// A row still referenced elsewhere (e.g. an environment used by a test plan) is a conflict, not a crash.
function foreignKeyViolation(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '23503') return 'This resource is still referenced by another resource; remove that reference first';
  if (code === '23505') return 'A resource with these values already exists';
  return undefined;
}
