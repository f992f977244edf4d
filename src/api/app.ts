import { randomUUID } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import { requireApiToken } from './auth.js';
import { apiServiceContext, type AppDeps, type AppEnv, type Caller } from './context.js';
import { forgetProjectLists } from '../db/queries/project-lists.js';
import { handleError } from './errors.js';
import { jsonBodyGuard, paramGuard } from './request-guards.js';
import { requestRules, serveOpenApiDocument, validationHook } from './openapi.js';
import { registerHealth } from './routes/health.js';
import { registerProbes } from './routes/probes.js';
import { registerApplications } from './routes/applications.js';
import { registerEnvironments } from './routes/environments.js';
import { registerDevicePresets } from './routes/device-presets.js';
import { registerConfigs } from './routes/configs.js';
import { registerProjectFiles } from './routes/project-files.js';
import { registerScenarios } from './routes/scenarios.js';
import { registerTestPlans } from './routes/test-plans.js';
import { registerTestPlanSchedules } from './routes/test-plan-schedules.js';
import { registerTestCases } from './routes/test-cases.js';
import { registerTestCaseExport } from './routes/test-case-export.js';
import { registerTestCaseFiles } from './routes/test-case-files.js';
import { registerGitSync } from './routes/git-sync.js';
import { registerTestCaseSteps } from './routes/test-case-steps.js';
import { registerTestCaseStepInsert } from './routes/test-case-step-insert.js';
import { registerProjectSettings } from './routes/project-settings.js';
import { registerRuns } from './routes/runs.js';
import { registerRunList } from './routes/run-list.js';
import { registerBlobRoutes } from './routes/blobs.js';
import { registerBadge } from './routes/badge.js';
import { registerBadgeTokens } from './routes/badge-tokens.js';
import { registerChat } from './routes/chat.js';
import { changeReviewPath, registerChangeReview } from './routes/change-review.js';
import { registerQaTechCompat } from './compat/qatech.js';
import { registerRemoteTunnels } from './routes/remote-tunnels.js';
import { registerBuilds } from './routes/builds.js';
import { mcpPath, registerMcp } from '../mcp/route.js';
import { registerMergeRequestReviewSettings } from './routes/merge-request-review-settings.js';
import { registerWebhooks } from './routes/webhooks.js';
import { registerGitIntegrations } from './routes/git-integrations.js';
import { registerDocs } from './routes/docs.js';
import { registerInbox } from './routes/inbox.js';
import { registerAuditLog } from './routes/audit-log.js';
import { registerIssues } from './routes/issues.js';
import { registerUsage } from './routes/usage.js';
import { registerDiscoveries } from './routes/discoveries.js';
import { registerDiscoverySchedules } from './routes/discovery-schedules.js';
import { registerCoverage } from './routes/coverage.js';
import type { FsBlobStore } from '../storage/fs.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DIFF_BYTES } from '../config.js';
import { createDashboard, dashboardBasePath } from '../web/index.js';
import { callerContext, requestSpan } from './request-span.js';

export const apiInfo = {
  title: 'Proctor API',
  version: '1.0.0',
  description:
    'AI-driven end-to-end testing: create tests from a goal in plain words, run test plans over a dependency graph, ' +
    'review pull/merge requests against their preview deployments. Authenticate with `Authorization: Bearer prt_…`.',
};

const publicPaths = new Set(['/v1/openapi.json', '/v1/badge.svg']);
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const services = apiServiceContext(deps);

  app.use('*', requestSpan);
  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    c.set('services', services);
    c.set('logger', deps.logger.child({ requestId }));
    c.header('X-Request-Id', requestId);
    await next();
  });

  // Before the token lookup and every query: a bad parameter or body never reaches Postgres.
  app.use('/v1/*', paramGuard);
  const bodyLimit = {
    bytes: deps.config.PROCTOR_MAX_BODY_BYTES ?? DEFAULT_MAX_BODY_BYTES,
    setting: 'PROCTOR_MAX_BODY_BYTES',
  };
  // A raw diff is the one body that is large by nature (a lock file alone can be megabytes); the review sends
  // the model only what fits its budget, UI code first and lock files last (src/domain/diff.ts). The MCP
  // endpoint carries one too, in `start_change_review`.
  const diffLimit = {
    bytes: Math.max(bodyLimit.bytes, deps.config.PROCTOR_MAX_DIFF_BYTES ?? DEFAULT_MAX_DIFF_BYTES),
    setting: 'PROCTOR_MAX_DIFF_BYTES',
  };
  const carriesDiff = new Set([changeReviewPath, mcpPath]);
  app.use(
    '/v1/*',
    jsonBodyGuard((path) => (carriesDiff.has(path) ? diffLimit : bodyLimit)),
  );

  app.use('/v1/*', async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    return requireApiToken(c, next);
  });
  app.use('/v1/*', callerContext);

  // The project's cached lists (src/db/queries/project-lists.ts) are dropped by every write through this
  // process as its statement returns; once more when a request that may have written ends, because a list read
  // between a write in a transaction and its commit holds what was there before, and this caller's next
  // read must not find it.
  app.use('/v1/*', async (c, next) => {
    await next();
    const caller = c.get('caller') as Caller | undefined;
    if (caller && !readMethods.has(c.req.method)) forgetProjectLists(caller.projectId);
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A project API token (`prt_…`), created with `proctor admin create-token`.',
  });

  registerHealth(app);
  registerProbes(app);
  // The filesystem store has no server of its own: the API serves its presigned URLs.
  if (deps.blobs.kind === 'fs') registerBlobRoutes(app, deps.blobs as FsBlobStore);
  registerApplications(app);
  registerEnvironments(app);
  registerBuilds(app);
  registerDevicePresets(app);
  registerConfigs(app);
  registerProjectFiles(app);
  registerScenarios(app);
  registerTestPlans(app);
  registerTestPlanSchedules(app);
  registerTestCases(app);
  registerTestCaseExport(app);
  registerTestCaseFiles(app);
  registerGitSync(app);
  registerTestCaseSteps(app);
  registerTestCaseStepInsert(app);
  registerProjectSettings(app);
  registerRunList(app);
  registerRuns(app);
  registerBadge(app);
  registerBadgeTokens(app);
  registerChangeReview(app);
  registerChat(app);
  registerQaTechCompat(app);
  registerRemoteTunnels(app);
  registerMcp(app);
  registerMergeRequestReviewSettings(app);
  registerWebhooks(app);
  registerGitIntegrations(app);
  registerInbox(app);
  registerAuditLog(app);
  registerIssues(app);
  registerUsage(app);
  registerDiscoveries(app);
  registerDiscoverySchedules(app);
  registerCoverage(app);

  serveOpenApiDocument(app, '/v1/openapi.json', {
    openapi: '3.1.0',
    info: { ...apiInfo, description: `${apiInfo.description}\n\n${requestRules}` },
    servers: [{ url: deps.config.publicUrl }],
    tags: [
      { name: 'Test cases', description: 'Create, list and export recorded tests' },
      {
        name: 'Chat',
        description: 'The AI assistant: conversations that list, create and run tests; replies stream, clients poll',
      },
      { name: 'Runs', description: 'Start, watch, rerun and cancel test plan runs; status badge' },
      {
        name: 'Tunnels',
        description: 'Remote tunnels that let the agents reach apps on your machine (`proctor tunnel`)',
      },
      { name: 'MCP', description: 'Model Context Protocol server over the same operations, for AI assistants' },
      {
        name: 'Merge request review',
        description:
          'Review pull/merge requests on GitHub and GitLab from their webhooks: settings per repository, the webhook endpoints',
      },
      {
        name: 'Builds',
        description: 'Two-step upload of mobile builds (Android .apk/.aab, iOS .ipa or zipped simulator .app)',
      },
      {
        name: 'Git integrations',
        description:
          'Connections to GitHub (an App or a token) and GitLab (an access token) that pull/merge request reviews use; secrets are write-only',
      },
      { name: 'Inbox', description: "Mail Proctor's own inbox received ({{INBOX}} addresses in steps), kept 7 days" },
      {
        name: 'Issues',
        description:
          'Quality issues (console errors, uncaught exceptions, failed requests, accessibility) seen by burn-ins and runs, deduplicated; filed in GitHub or GitLab',
      },
      {
        name: 'Management',
        description: 'What a dashboard would configure: applications, environments, presets, configs, scenarios, plans',
      },
      { name: 'System', description: 'Health and documentation' },
    ],
  });
  registerDocs(app);
  // The dashboard answers the `url` fields of API responses: it lives at the path of PROCTOR_APP_URL.
  const dashboardBase = dashboardBasePath(deps.config.appUrl);
  app.route(dashboardBase || '/', createDashboard(dashboardBase));

  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      c.header('Allow', allowed.join(', '));
      return c.json(
        { message: `Method ${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(', ')}` },
        405,
      );
    }
    return c.json({ message: `No route for ${c.req.method} ${c.req.path}` }, 404);
  });
  app.onError(handleError);
  return app;
}

const routePatterns = new WeakMap<object, { method: string; regex: RegExp }[]>();

/** The methods registered for a path, for a 405 with an `Allow` header instead of a misleading 404. */
function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  let patterns = routePatterns.get(app);
  if (!patterns) {
    patterns = app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({
        method: r.method,
        regex: new RegExp(
          '^' +
            r.path
              .split('/')
              .map((seg) =>
                seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
              )
              .join('/') +
            '$',
        ),
      }));
    routePatterns.set(app, patterns);
  }
  const methods = new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}
