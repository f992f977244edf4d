import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { shortId, uuid } from '../schemas/common.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import type { AppDeps } from '../context.js';
import {
  collectRunTests,
  findRun,
  insertRun,
  markRunError,
  RunRequestError,
  runTestRows,
  toRunSummary,
  type EnvironmentOverride,
  type RunMetadata,
} from '../../db/queries/runs.js';
import { createPlanRun } from '../../runs/create-run.js';
import { cancelPlanRun, startPlanRun } from '../../temporal/lifecycle.js';

const tags = ['Runs'];

const EnvironmentOverrideSchema = z.union([
  z.object({ url: z.string().url().refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL'), name: z.string().optional() }).strict(),
  z.object({ shortId: shortId('environment') }).strict(),
  z.object({ applicationBuildShortId: shortId('build') }).strict(),
]);

export const StartRun = z
  .object({
    testPlanShortId: shortId('testPlan').optional().openapi({ description: "Absent: the project's default plan" }),
    applications: z
      .array(z.object({ applicationShortId: shortId('application'), environment: EnvironmentOverrideSchema.optional(), devicePresetShortId: shortId('devicePreset').optional() }))
      .optional()
      .openapi({ description: 'Per-application overrides; they beat plan parameters, which beat project settings' }),
    trigger: z.string().min(1).max(40).default('API').openapi({ example: 'GITHUB' }),
    actor: z.string().max(200).optional(),
    branch: z.string().max(300).optional(),
    commitHash: z.string().max(100).optional(),
    commitMessage: z.string().max(5000).optional(),
    repository: z.string().max(300).optional(),
    notifications: z
      .array(z.object({ type: z.literal('slack'), channel: z.string().min(1), notifyOn: z.enum(['failure', 'always']).optional() }))
      .min(1)
      .optional()
      .openapi({ description: "Replaces the plan's chat-tool channel for this run only; an empty array is a 400" }),
  })
  .openapi('StartRun');

const RunRef = z.object({ id: z.string().uuid(), shortId: shortId('run'), url: z.string().url(), testCount: z.number().int() });
const StartRunResponse = z
  .object({ success: z.literal(true), run: RunRef.extend({ testPlan: z.object({ name: z.string(), shortId: shortId('testPlan') }).nullable() }) })
  .openapi('StartRunResponse');

const RunTestCaseSchema = z
  .object({
    id: z.string().uuid(),
    shortId: z.string().openapi({ description: 'The test case id (UUID)' }),
    name: z.string(),
    status: z.enum(['PENDING', 'RUNNING', 'COMPLETED', 'SKIPPED', 'ERROR', 'CANCELLED']),
    result: z.enum(['PASSED', 'FAILED', 'SKIPPED']).nullable(),
    resultTitle: z.string().nullable(),
    evaluationThought: z.string().nullable().openapi({ description: 'Why it failed or was skipped' }),
    promptGoal: z.string().nullable(),
    promptExamples: z.array(z.string()),
    inPlan: z.boolean().openapi({ description: 'false for a dependency included automatically' }),
    environmentUrl: z.string().nullable(),
    failedStepIndex: z.number().int().nullable(),
    error: z.string().nullable(),
    healedSteps: z.array(z.object({ index: z.number(), from: z.string().nullable().optional(), to: z.string(), via: z.string() })),
    screenshotUrl: z.string().nullable().openapi({ description: 'Presigned, expiring link to the failing step screenshot' }),
    traceUrl: z.string().nullable().openapi({ description: 'Presigned, expiring link to the Playwright trace (open with `npx playwright show-trace`)' }),
    durationMs: z.number().int().nullable(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
  })
  .openapi('RunTestCase');

const RunSchema = z
  .object({
    id: z.string().uuid(),
    shortId: shortId('run'),
    url: z.string().url(),
    status: z.enum(['INITIATED', 'RUNNING', 'COMPLETED', 'ERROR', 'CANCELLED']).openapi({ description: 'COMPLETED, ERROR and CANCELLED are terminal' }),
    result: z.enum(['PASSED', 'FAILED', 'SKIPPED']).nullable().openapi({ description: 'PASSED means success; null until the run ends' }),
    error: z.string().nullable(),
    trigger: z.string(),
    testCount: z.number().int(),
    testPlan: z.object({ name: z.string(), shortId: z.string() }).nullable(),
    rerunOf: z.string().nullable(),
    createdAt: z.string().datetime(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
    runTestCases: z.array(RunTestCaseSchema).optional().openapi({ description: 'With ?testCases=failed|all' }),
  })
  .openapi('Run');

const RunParams = z.object({ shortId: shortId('run').openapi({ param: { name: 'shortId', in: 'path' } }) });

export const Rerun = z
  .object({
    failedOnly: z.literal(true).optional(),
    projectTestCaseIds: z.array(uuid()).min(1).optional(),
  })
  .refine((b) => !(b.failedOnly && b.projectTestCaseIds), { message: 'failedOnly and projectTestCaseIds cannot be combined', path: ['failedOnly'] })
  .openapi('Rerun');

const routes = {
  start: createRoute({
    method: 'post', path: '/v1/run', tags, security: bearerSecurity,
    summary: 'Start a run of a test plan',
    description: "The body is optional: an empty body runs the project's default plan. Includes the plan's enabled test cases and their transitive dependencies.",
    request: { body: { required: false, content: { 'application/json': { schema: StartRun } } } },
    responses: { 200: json(StartRunResponse, 'Started'), 503: json(ErrorSchema, 'The run could not be started'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: '/v1/run/{shortId}', tags, security: bearerSecurity,
    summary: 'Run status (poll until COMPLETED, ERROR or CANCELLED)',
    request: { params: RunParams, query: z.object({ testCases: z.enum(['failed', 'all']).optional() }) },
    responses: { 200: json(RunSchema, 'The run'), ...errorResponses },
  }),
  rerun: createRoute({
    method: 'post', path: '/v1/run/{shortId}', tags, security: bearerSecurity,
    summary: 'Rerun: failed tests only, specific test cases (plus their dependencies) or everything, as a new run',
    request: { params: RunParams, body: { required: false, content: { 'application/json': { schema: Rerun } } } },
    responses: { 200: json(z.object({ success: z.literal(true), run: RunRef }), 'The new run'), 503: json(ErrorSchema, 'Not started'), ...errorResponses },
  }),
  cancel: createRoute({
    method: 'post', path: '/v1/run/{shortId}/cancel', tags, security: bearerSecurity,
    summary: 'Cancel a run that has not ended',
    request: { params: RunParams },
    responses: { 202: json(z.object({ success: z.literal(true), status: z.string() }), 'Cancellation requested'), 409: json(ErrorSchema, 'The run already ended'), ...errorResponses },
  }),
};

const terminal = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

async function start(deps: AppDeps, projectId: string, run: { id: string; shortId: string; testCount: number }, planName: string | null): Promise<void> {
  try {
    const summary = `Run ${run.shortId}${planName ? ` (${planName})` : ''}: ${run.testCount} test(s)`;
    await startPlanRun(deps.temporal, { runId: run.id, runShortId: run.shortId, projectId, concurrency: deps.config.PROCTOR_RUN_CONCURRENCY, heal: true }, summary);
  } catch (err) {
    const message = `could not start the run: ${err instanceof Error ? err.message : String(err)}`;
    await markRunError(deps.db, run.id, message);
    throw new ApiError(503, `${message} (run ${run.shortId} is marked ERROR)`);
  }
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function registerRuns(app: OpenApiApp): void {
  app.openapi(routes.start, async (c) => {
    const deps = c.get('deps');
    const { db } = deps;
    const { projectId } = c.get('caller');
    // Validated by the route when present; an absent body means "the default plan, no overrides".
    const body = c.req.valid('json') ?? StartRun.parse({});
    try {
      const run = await createPlanRun(db, projectId, {
        testPlanShortId: body.testPlanShortId,
        applications: body.applications as EnvironmentOverride[] | undefined,
        meta: body satisfies RunMetadata,
      });
      await start(deps, projectId, run, run.plan.name);
      return c.json(
        { success: true as const, run: { id: run.id, shortId: run.shortId, url: `${deps.config.appUrl}/runs/${run.shortId}`, testCount: run.testCount, testPlan: { name: run.plan.name, shortId: run.plan.shortId } } },
        200,
      );
    } catch (err) {
      if (err instanceof RunRequestError) throw new ApiError(err.status, err.message);
      throw err;
    }
  });

  app.openapi(routes.get, async (c) => {
    const deps = c.get('deps');
    const run = await findRun(deps.db, c.get('caller').projectId, c.req.valid('param').shortId);
    if (!run) throw notFound('Run');
    const which = c.req.valid('query').testCases;
    const link = async (key: string | null) => (key ? deps.blobs.presignGet(key, deps.config.PROCTOR_URL_TTL_SECONDS) : null);
    const rows = which ? await runTestRows(deps.db, run.id, which === 'failed') : undefined;
    return c.json(
      {
        ...toRunSummary(run, deps.config.appUrl),
        error: run.error,
        rerunOf: run.rerun_of_short_id,
        ...(rows && {
          runTestCases: await Promise.all(
            rows.map(async (r) => ({
              id: r.id,
              shortId: r.test_case_id ?? r.id,
              name: r.name,
              status: r.status,
              result: r.result,
              resultTitle: r.result_title,
              evaluationThought: r.error,
              promptGoal: r.goal,
              promptExamples: [],
              inPlan: r.in_plan,
              environmentUrl: r.environment_url,
              failedStepIndex: r.failed_step_index,
              error: r.error,
              healedSteps: (r.healed as { index: number; from?: string | null; to: string; via: string }[] | null) ?? [],
              screenshotUrl: await link(r.screenshot_key),
              traceUrl: await link(r.trace_key),
              durationMs: r.duration_ms,
              startedAt: iso(r.started_at),
              finishedAt: iso(r.finished_at),
            })),
          ),
        }),
      },
      200,
    );
  });

  app.openapi(routes.rerun, async (c) => {
    const deps = c.get('deps');
    const { db } = deps;
    const { projectId } = c.get('caller');
    const original = await findRun(db, projectId, c.req.valid('param').shortId);
    if (!original) throw notFound('Run');
    const body = c.req.valid('json') ?? {};
    if (body.failedOnly && !terminal.has(original.status)) throw new ApiError(409, 'the run has not ended yet: rerun its failed tests once it has');
    const rows = await runTestRows(db, original.id, false);
    let roots: string[];
    if (body.failedOnly) roots = rows.filter((r) => r.result !== 'PASSED').map((r) => r.test_case_id!).filter(Boolean);
    else if (body.projectTestCaseIds) {
      const inRun = new Set(rows.map((r) => r.test_case_id));
      const missing = body.projectTestCaseIds.map((id) => id.toLowerCase()).find((id) => !inRun.has(id));
      if (missing) throw notFound(`Test case ${missing} in run ${original.short_id}`);
      roots = body.projectTestCaseIds.map((id) => id.toLowerCase());
    } else roots = rows.map((r) => r.test_case_id!).filter(Boolean);
    if (roots.length === 0) throw badRequest('nothing to rerun: every test of the run passed');
    const tests = await collectRunTests(db, projectId, roots);
    // Same environments as the original run: a rerun answers "does it pass now", not "on another environment".
    const byTest = new Map(rows.map((r) => [r.test_case_id, r]));
    const run = await insertRun(db, {
      projectId,
      planId: original.test_plan_id,
      rerunOf: original.id,
      meta: { trigger: original.trigger, actor: original.actor ?? undefined, branch: original.branch ?? undefined, commitHash: original.commit_hash ?? undefined, repository: original.repository ?? undefined, notifications: original.notifications ?? undefined },
      tests: tests.map((t) => ({
        testCase: t,
        // As in the original run: a dependency pulled in by the rerun is still a plan member if it was one.
        inPlan: byTest.get(t.id)?.in_plan ?? false,
        environmentUrl: byTest.get(t.id)?.environment_url ?? null,
        buildId: byTest.get(t.id)?.application_build_id ?? null,
        device: (byTest.get(t.id)?.device as never) ?? null,
      })),
    });
    await start(deps, projectId, { ...run, testCount: tests.length }, `rerun of ${original.short_id}`);
    return c.json({ success: true as const, run: { id: run.id, shortId: run.shortId, url: `${deps.config.appUrl}/runs/${run.shortId}`, testCount: tests.length } }, 200);
  });

  app.openapi(routes.cancel, async (c) => {
    const deps = c.get('deps');
    const run = await findRun(deps.db, c.get('caller').projectId, c.req.valid('param').shortId);
    if (!run) throw notFound('Run');
    if (terminal.has(run.status)) throw new ApiError(409, `the run already ended (${run.status})`);
    await cancelPlanRun(deps.temporal, run.short_id);
    return c.json({ success: true as const, status: 'CANCELLING' }, 202);
  });
}
