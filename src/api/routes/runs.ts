import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { Rerun, RunParams, RunQuery, StartRun } from '../../schemas/runs.js';
import { CancelRunResponse, RerunResponse, RunSchema, StartRunResponse } from '../../schemas/run-views.js';
import { cancelRun, rerun, runTestPlan } from '../../services/runs.js';
import { getRunView, rerunSelection, runRef, type RunMetadata } from '../../services/run-views.js';

const tags = ['Runs'];
const run = { tags, path: '/v1/run/{shortId}', params: RunParams };

const routes = {
  start: operation({
    method: 'post',
    path: '/v1/run',
    tags,
    summary: 'Start a run of a test plan',
    description:
      "The body is optional: an empty body runs the project's default plan. Includes the plan's enabled test cases and their transitive dependencies.",
    body: StartRun,
    optionalBody: true,
    answers: StartRunResponse,
    answer: 'Started',
    unavailable: 'The run could not be started',
  }),
  get: operation({
    ...run,
    method: 'get',
    summary: 'Run status (poll until COMPLETED, ERROR or CANCELLED)',
    query: RunQuery,
    answers: RunSchema,
    answer: 'The run',
  }),
  rerun: operation({
    ...run,
    method: 'post',
    summary: 'Rerun: failed tests only, specific test cases (plus their dependencies) or everything, as a new run',
    body: Rerun,
    optionalBody: true,
    answers: RerunResponse,
    answer: 'The new run',
    unavailable: 'Not started',
  }),
  cancel: operation({
    ...run,
    method: 'post',
    path: '/v1/run/{shortId}/cancel',
    summary: 'Cancel a run that has not ended',
    status: 202,
    answers: CancelRunResponse,
    answer: 'Cancellation requested',
    conflict: 'The run already ended',
  }),
};

export function registerRuns(app: OpenApiApp): void {
  serveResource(app, routes, {
    start: async ({ services, projectId, body }) => {
      // Validated by the route when present; an absent body means "the default plan, no overrides".
      const request = body ?? StartRun.parse({});
      const run = await runTestPlan(services, {
        projectId,
        testPlanShortId: request.testPlanShortId,
        applications: request.applications,
        meta: request satisfies RunMetadata,
      });
      return {
        success: true as const,
        run: { ...runRef(services.appUrl, run), testPlan: { name: run.plan.name, shortId: run.plan.shortId } },
      };
    },
    get: ({ services, projectId, param, query }) =>
      getRunView(services, { projectId, runShortId: param.shortId, tests: query.testCases }),
    rerun: async ({ services, projectId, param, body }) => {
      const run = await rerun(services, {
        projectId,
        runShortId: param.shortId,
        selection: rerunSelection(body ?? {}),
      });
      return { success: true as const, run: runRef(services.appUrl, run) };
    },
    cancel: async ({ services, projectId, param }) => {
      await cancelRun(services, { projectId, runShortId: param.shortId });
      return { success: true as const, status: 'CANCELLING' };
    },
  });
}
