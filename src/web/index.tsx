import { Hono } from 'hono';
import { DomainError } from '../domain/errors.js';
import { registerAssets } from './assets.js';
import type { WebEnv } from './context.js';
import { renderPage } from './layout.js';
import { registerAuthPages } from './pages/auth.js';
import { registerRunPages } from './pages/runs.js';
import { registerTestCasePages } from './pages/test-cases.js';
import { registerCoveragePages } from './pages/coverage.js';
import { registerChatPages } from './pages/chats.js';
import { registerReviewPages } from './pages/reviews.js';
import { registerTestPlanPages } from './pages/test-plans.js';
import { registerSettingsPages } from './pages/settings.js';
import { registerTunnelPages } from './pages/tunnels.js';
import { registerGitPages } from './pages/git.js';
import { registerInboxPages } from './pages/inbox.js';
import { registerIssuePages } from './pages/issues.js';
import { registerStepEditorPages } from './pages/step-editor.js';
import { registerComparePages } from './pages/compare.js';
import { registerFormPages } from './pages/forms.js';
import { registerLivePages } from './pages/live.js';
import { registerUsagePages } from './pages/usage.js';
import { registerTraceViewer } from './trace-viewer.js';

export { dashboardBasePath } from './context.js';

const domainStatus = { NotFound: 404, Invalid: 400, Conflict: 409, Unavailable: 503, Exhausted: 429 } as const;

/**
 * The dashboard: server-rendered pages (hono/jsx) behind the URLs the API returns, mounted by `createApp`
 * at the path of PROCTOR_APP_URL. Each area registers its routes in `pages/<area>.tsx` (see README.md).
 */
export function createDashboard(base: string): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  registerAssets(web);
  registerTraceViewer(web);
  registerAuthPages(web, base);
  registerRunPages(web, base);
  registerTestCasePages(web, base);
  registerChatPages(web, base);
  registerReviewPages(web, base);
  registerTestPlanPages(web, base);
  registerSettingsPages(web, base);
  registerCoveragePages(web, base);
  registerTunnelPages(web, base);
  registerGitPages(web, base);
  registerInboxPages(web, base);
  registerIssuePages(web, base);
  registerStepEditorPages(web, base);
  registerComparePages(web, base);
  registerFormPages(web, base);
  registerLivePages(web, base);
  registerUsagePages(web, base);
  web.get('/', (c) => c.redirect(`${base}/runs`, 303));

  // A refused action (a proposal already decided, a test without steps) is shown as a page, not JSON.
  web.onError((err, c) => {
    if (!(err instanceof DomainError)) throw err;
    c.set('base', c.get('base') ?? base);
    return renderPage(
      c,
      { title: 'Not done' },
      <>
        <h1>That did not work</h1>
        <p class="error" role="alert">
          {err.message}
        </p>
        <p>
          <a href={c.req.header('referer') ?? `${base}/runs`}>Back</a>
        </p>
      </>,
      domainStatus[err.kind],
    );
  });
  return web;
}
