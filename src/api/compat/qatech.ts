// QA.tech's published GitHub Action (QAdottech/run-action) works against Proctor with only `api_url` changed.
// Its v2 line starts a run with POST {api_url}/api/projects/{project_id}/runs (applications as an object keyed
// by application short id) and, when blocking, polls GET {api_url}/api/projects/{project_id}/runs/{shortId}
// reading `status` and `result`; it prints `run.testPlan.short_id`. The v4 build starts runs on /v1 and polls
// GET {base}/run/{shortId}: /v1/run/{shortId} serves an api_url ending in /v1, the alias below one without.
// These routes only translate: the run is written and started by the same code as POST /v1/run, and read
// through the same view as GET /v1/run/{shortId}. The token decides the project, as everywhere.
import { z } from '@hono/zod-openapi';
import { requireApiToken } from '../auth.js';
import type { ApiServices, Caller } from '../context.js';
import { ApiError } from '../errors.js';
import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { getRunView } from '../../services/run-views.js';
import { pathParams, shortId } from '../../schemas/common.js';
import { RunParams } from '../../schemas/runs.js';
import type { ApplicationOverride } from '../../domain/precedence.js';
import { runTestPlan } from '../../services/runs.js';

const tags = ['QA.tech compatibility'];

// Postgres cannot store U+0000 in text: refused here as bad input rather than failing in the database.
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'must not contain the NUL character');

const ProjectParams = pathParams({
  projectId: text(200).openapi({ description: 'The Proctor project id of the token (`proctor admin list-projects`)' }),
});
// The run's short id in the path, as GET /v1/run/{shortId} takes it.
const ProjectRunParams = ProjectParams.extend(RunParams.shape);

const StartRunV2 = z
  .object({
    trigger: text(40).min(1).default('GITHUB'),
    actor: text(200).optional(),
    branch: text(300)
      .optional()
      .openapi({ description: 'A git ref; `refs/heads/` is dropped, so `refs/heads/main` is stored as `main`' }),
    commitHash: text(100).optional(),
    repository: text(300).optional(),
    testPlanShortId: shortId('testPlan').optional().openapi({ description: "Absent: the project's default plan" }),
    testPlanShortIds: z
      .array(shortId('testPlan'))
      .max(1, 'one test plan per run: start one run per plan')
      .optional()
      .openapi({ description: 'What the v1 line of the action sends; at most one plan' }),
    applications: z
      .record(
        shortId('application'),
        z.object({
          environment: z.object({
            url: z
              .string()
              .url()
              .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL'),
            name: text(200).optional(),
          }),
        }),
      )
      .optional()
      .openapi({
        description: "The action's `applications_config.applications`: environment URL per application short id",
      }),
    integrationName: text(200).optional(),
    exploratoryUrl: z
      .string()
      .optional()
      .openapi({ description: 'Exploratory runs are not supported: sending it is a 400' }),
    exploratoryPrompt: z
      .string()
      .optional()
      .openapi({ description: 'Exploratory runs are not supported: sending it is a 400' }),
  })
  .refine((b) => b.exploratoryUrl === undefined && b.exploratoryPrompt === undefined, {
    message: 'exploratory runs are not supported by Proctor: remove exploratory_url and exploratory_prompt',
    path: ['exploratoryUrl'],
  })
  .refine((b) => !(b.testPlanShortId && b.testPlanShortIds?.length), {
    message: 'give testPlanShortId or testPlanShortIds, not both',
    path: ['testPlanShortIds'],
  })
  .openapi('QaTechStartRun');

const PlanRef = z.object({
  name: z.string(),
  shortId: z.string(),
  short_id: z.string().openapi({ description: 'The same short id, under the name the action reads' }),
});
const StartedRun = z
  .object({
    success: z.literal(true),
    run: z.object({
      id: z.string().uuid(),
      shortId: shortId('run'),
      url: z.string().url(),
      testCount: z.number().int(),
      testPlan: PlanRef,
    }),
  })
  .openapi('QaTechStartedRun');

const RunStatus = z
  .object({
    id: z.string().uuid(),
    shortId: shortId('run'),
    short_id: shortId('run'),
    url: z.string().url(),
    status: z.enum(['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED']),
    result: z.enum(['PASSED', 'FAILED', 'SKIPPED']).nullable(),
    error: z.string().nullable(),
    testCount: z.number().int(),
    testPlan: PlanRef.nullable(),
  })
  .openapi('QaTechRunStatus');

const routes = {
  start: operation({
    method: 'post',
    path: '/api/projects/{projectId}/runs',
    tags,
    summary: "Start a run as QA.tech's GitHub Action (v2) does",
    description:
      'The request of `QAdottech/run-action@v2`. `projectId` must be the project of the token (another or an unknown one is a 404). ' +
      '`applications` maps application short ids to an environment URL, like `applications` of POST /v1/run.',
    params: ProjectParams,
    body: StartRunV2,
    answers: StartedRun,
    answer: 'Started',
    unavailable: 'The run could not be started',
  }),
  status: operation({
    method: 'get',
    path: '/api/projects/{projectId}/runs/{shortId}',
    tags,
    summary: "Run status as QA.tech's GitHub Action (v2) polls it",
    params: ProjectRunParams,
    answers: RunStatus,
    answer: 'The run',
  }),
  statusAlias: operation({
    method: 'get',
    path: '/run/{shortId}',
    tags,
    summary: "Run status as QA.tech's GitHub Action (v4) polls it when api_url has no /v1",
    params: RunParams,
    answers: RunStatus,
    answer: 'The run',
  }),
};

/** The project in the path must be the token's: any other id, real or not, is answered as not found. */
function requireOwnProject(caller: Caller, projectId: string): string {
  if (projectId !== caller.projectId) {
    throw new ApiError(
      404,
      `Project not found: ${projectId} (this token belongs to project ${caller.projectId}; use that as project_id)`,
    );
  }
  return caller.projectId;
}

async function statusOf(services: ApiServices, projectId: string, runShortId: string) {
  const view = await getRunView(services, { projectId, runShortId, tests: undefined });
  return {
    id: view.id,
    shortId: view.shortId,
    short_id: view.shortId,
    url: view.url,
    status: view.status,
    result: view.result,
    error: view.error,
    testCount: view.testCount,
    testPlan: view.testPlan && { ...view.testPlan, short_id: view.testPlan.shortId },
  };
}

export function registerQaTechCompat(app: OpenApiApp): void {
  app.use('/api/projects/*', requireApiToken);
  app.use('/run/*', requireApiToken);

  serveResource(app, routes, {
    start: async ({ services, caller, param, body }) => {
      const projectId = requireOwnProject(caller, param.projectId);
      const applications: ApplicationOverride[] = Object.entries(body.applications ?? {}).map(
        ([applicationShortId, { environment }]) => ({
          applicationShortId,
          environment: { url: environment.url, ...(environment.name !== undefined && { name: environment.name }) },
        }),
      );
      const run = await runTestPlan(services, {
        projectId,
        testPlanShortId: body.testPlanShortId ?? body.testPlanShortIds?.[0],
        applications,
        meta: {
          trigger: body.trigger,
          actor: body.actor,
          branch: body.branch?.replace(/^refs\/heads\//, ''),
          commitHash: body.commitHash,
          repository: body.repository,
        },
      });
      const plan = { name: run.plan.name, shortId: run.plan.shortId, short_id: run.plan.shortId };
      return {
        success: true as const,
        run: {
          id: run.id,
          shortId: run.shortId,
          url: `${services.appUrl}/runs/${run.shortId}`,
          testCount: run.testCount,
          testPlan: plan,
        },
      };
    },
    status: ({ services, caller, param }) =>
      statusOf(services, requireOwnProject(caller, param.projectId), param.shortId),
    statusAlias: ({ services, projectId, param }) => statusOf(services, projectId, param.shortId),
  });
}
