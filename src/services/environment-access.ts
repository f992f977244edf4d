// An environment's access (basic auth, headers, cookies): validated and merged here, so a secret kept from an
// earlier write is never needed again, and never returned.
import { findEnvironment } from '../db/queries/environments.js';
import { readEnvironmentAccess, writeEnvironmentAccess } from '../db/queries/environment-access.js';
import { mergeAccess, type EnvironmentAccessInput } from '../domain/environment-access.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';

// Headers Chromium or HTTP itself owns: set per environment they would break every request, not authorize it.
const forbiddenHeaders = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'cookie',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-authorization',
]);

/** InvalidError when the access cannot apply to an environment with (or without) a URL; before anything is written. */
export function checkAccess(input: EnvironmentAccessInput, hasUrl: boolean): void {
  for (const h of input.headers ?? []) {
    if (forbiddenHeaders.has(h.name.toLowerCase()))
      throw new InvalidError(
        `access.headers: "${h.name}" cannot be set per environment${h.name.toLowerCase() === 'cookie' ? ' (use access.cookies)' : ''}`,
      );
  }
  if ((input.httpCredentials || input.cookies?.length) && !hasUrl)
    throw new InvalidError('access: basic auth and cookies need an environment with a url');
}

export async function saveAccess(
  { db }: ServiceContext,
  projectId: string,
  environmentShortId: string,
  input: EnvironmentAccessInput,
): Promise<void> {
  const env = await findEnvironment(db, projectId, environmentShortId);
  if (!env) throw new NotFoundError('Environment');
  checkAccess(input, Boolean(env.url));
  const merged = mergeAccess(await readEnvironmentAccess(db, env.id), input);
  if (typeof merged === 'string') throw new InvalidError(`access.${merged}`);
  await writeEnvironmentAccess(db, env.id, merged);
}
