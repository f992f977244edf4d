import type { ActivityDeps } from './deps.js';
import { contextAccess, type ContextAccess } from '../src/browser/context/access.js';
import type { RunValues } from '../src/domain/run-values.js';
import { accessForTarget } from '../src/db/queries/environment-access.js';
import { accessSecrets } from '../src/domain/environment-access.js';

/**
 * The basic auth, headers and cookies of the application's environment at `baseUrl`, as browser-context settings;
 * their secrets join the run's redactions, so a page echoing a bypass token never shows it to the model.
 */
export async function environmentAccess(
  deps: ActivityDeps,
  applicationId: string,
  baseUrl: string,
  values: RunValues,
): Promise<ContextAccess | undefined> {
  const access = await accessForTarget(deps.db, applicationId, baseUrl);
  values.redactAlso(accessSecrets(access));
  return contextAccess(access, baseUrl);
}
