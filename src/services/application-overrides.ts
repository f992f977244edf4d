// What an application override's environment names (src/domain/precedence.ts), looked up once for every caller:
// a run resolving its environments, a conversation checking its overrides, a change review finding its preview URL.
import { findBuild } from '../db/queries/builds.js';
import { findEnvironment } from '../db/queries/environments.js';
import type { EnvironmentOverride } from '../domain/precedence.js';
import type { ServiceContext } from './context.js';

export interface OverrideTarget {
  /** The URL to browse; null for a mobile build, or an environment without a URL. */
  url: string | null;
  buildId: string | null;
  /** The build an override names directly (a run keeps an environment holding it). */
  build?: NonNullable<Awaited<ReturnType<typeof findBuild>>>;
}

/**
 * A URL as given; an environment or a build by short id in the project, and only of `applicationId` when one is
 * given. undefined when the environment or build does not exist there: the caller refuses (`missingTarget`) or ignores it.
 */
export async function findOverrideTarget(
  { db }: ServiceContext,
  projectId: string,
  env: EnvironmentOverride,
  applicationId?: string,
): Promise<OverrideTarget | undefined> {
  if ('url' in env) return { url: env.url, buildId: null };
  if ('shortId' in env) {
    const row = await findEnvironment(db, projectId, env.shortId);
    if (!row || (applicationId !== undefined && row.application_id !== applicationId)) return undefined;
    return { url: row.url, buildId: row.application_build_id };
  }
  const build = await findBuild(db, projectId, env.applicationBuildShortId);
  if (!build || (applicationId !== undefined && build.application_id !== applicationId)) return undefined;
  return { url: null, buildId: build.id, build };
}

/** What a missing target was, for a NotFoundError: `['Environment', shortId]` or `['Application build', shortId]` (a URL is never missing). */
export function missingTarget(env: EnvironmentOverride): [what: string, shortId: string] {
  if ('applicationBuildShortId' in env) return ['Application build', env.applicationBuildShortId];
  return ['Environment', 'shortId' in env ? env.shortId : env.url];
}
