import type { ApiServices, AppDeps } from '../api/context.js';
import type { DashboardSession } from '../services/access.js';
import type { Logger } from '../logger.js';

/** What a dashboard handler may read: the API's deps and, behind `requireSession`, the signed-in project. */
export type WebEnv = {
  Variables: {
    deps: AppDeps;
    /** The services' context, as the API's routes get it. */
    services: ApiServices;
    requestId: string;
    logger: Logger;
    /** The dashboard's path prefix ('' when PROCTOR_APP_URL has no path): every link starts with it. */
    base: string;
    session: DashboardSession;
    /** The CSRF token the page's forms carry (derived from the session's secret). */
    csrfToken: string;
  };
};

/**
 * The path the dashboard is mounted at: the path of PROCTOR_APP_URL, so the `url` fields of API answers
 * (`<appUrl>/runs/<shortId>`) land on its pages. A reverse proxy may serve another origin in front; the
 * path is what reaches this process.
 */
export function dashboardBasePath(appUrl: string): string {
  return new URL(appUrl).pathname.replace(/\/+$/, '');
}
