import { afterAll, beforeAll } from 'vitest';
import { createApiContext, type ApiContext, type DatabaseKind } from './app-context.js';
import { reserveAppUrl } from './dashboard.js';

/**
 * For the tests of one file: the API on a reserved app URL with a front opened over it (a dashboard browser, a
 * sign-in server), both closed after the tests. `api` and `front` are set before the first test runs.
 */
export function serveAppForTests<Front extends { close(): Promise<void> }>(
  kind: DatabaseKind,
  open: (app: ApiContext['app'], appUrl: string) => Promise<Front>,
): { api: ApiContext; front: Front } {
  const served = {} as { api: ApiContext; front: Front };
  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    served.api = await createApiContext(kind, { appUrl });
    served.front = await open(served.api.app, appUrl);
  });
  afterAll(async () => {
    await served.front?.close();
    await served.api?.close();
  });
  return served;
}
