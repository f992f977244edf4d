import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { httpUrl, shortId, uuid } from '../schemas/common.js';
import { notFound } from '../errors.js';
import type { AppDeps } from '../context.js';
import { findRunWithTests, toRunFields, type RunMetadata, type RunWithTests } from '../../db/queries/runs.js';
import { changeFields, failureKinds, type FailureEvidence } from '../../domain/verdicts.js';
import { cancelRun, rerun, runTestPlan, type RerunSelection, type RunStartDeps } from '../../services/runs.js';

const tags = ['Runs'];

const EnvironmentOverrideSchema = z.union([
  z.object({ url: httpUrl(), name: z.string().optional() }).strict(),
  z.object({ shortId: shortId('environment') }).strict(),
  z.object({ applicationBuildShortId: shortId('build') }).strict(),
]).openapi(
  { description: 'Exactly one form: an ad-hoc `url` (and `name`), an environment `shortId`, or an `applicationBuildShortId`' },
  // The strict forms exclude each other, so the document says `oneOf`, as the server means it.
  { unionPreferredType: 'oneOf' },
);

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
    failedStepIndex: z
      .number()
      .int()
      .nullable()
      .openapi({ description: '0-based index into the recorded steps (`error` says "step N" with N = failedStepIndex + 1); -1 when the start page did not open' }),
    error: z.string().nullable().openapi({ description: 'For a failed assertion it ends with a short, redacted excerpt of what the page showed' }),
    healedSteps: z
      .array(
        z.object({
          index: z.number().openapi({ description: '0-based, like failedStepIndex' }),
          from: z.string().nullable().optional(),
          to: z.string(),
          via: z.string().openapi({ description: '`fallback`: a recorded alternative locator matched; `llm`: the model re-found the element and the pick was checked' }),
          reason: z.string().optional(),
        }),
      )
      .openapi({ description: 'Steps this run found through another locator than their primary; non-empty means the run needed healing' }),
    changes: z
      .array(
        z.object({
          stepIndex: z.number().int().openapi({ description: '0-based, like failedStepIndex' }),
          field: z.enum(changeFields),
          from: z.string().nullable(),
          to: z.string().nullable(),
          severity: z.enum(['regression', 'cosmetic']).openapi({ description: '`regression`: something a user depends on broke (a lost accessible name, another role); `cosmetic`: worth a note' }),
          summary: z.string().openapi({ example: 'the checkbox "Select all" lost its accessible name' }),
        }),
      )
      .openapi({ description: 'How the elements the replay used differ from the recorded ones; empty when all are the same' }),
    failureKind: z
      .enum(failureKinds)
      .nullable()
      .openapi({ description: 'Why a failed or errored test failed: a real bug (`assertion`, `element-missing`, `changed-ui`), a down `environment`, a broken `test-definition` or an `infrastructure` fault; null when it passed or is unknown' }),
    evidence: z
      .object({ url: z.string().optional(), pageExcerpt: z.string().optional(), httpStatus: z.number().int().optional() })
      .nullable()
      .openapi({ description: 'What backs the failure kind: the page URL, a redacted excerpt of what it showed, the main document\'s HTTP status (the screenshot is `screenshotUrl`)' }),
    flaky: z.boolean().openapi({ description: 'PASSED only on a retry (see `retries` in `/v1/project/settings`)' }),
    attempts: z.number().int().openapi({ description: 'Executions of the test in this run, retries included; the result and artifacts are the last one\'s' }),
    quarantined: z.boolean().openapi({ description: 'Quarantined when the run was written: it ran and reports, but its failure does not fail the run' }),
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
    runTestCases: z.array(RunTestCaseSchema).openapi({ description: 'The tests with ?testCases=all, those that did not pass with ?testCases=failed; always present, empty without the parameter' }),
  })
  .openapi('Run');

export const RunParams = z.object({ shortId: shortId('run').openapi({ param: { name: 'shortId', in: 'path' } }) });
export const RunQuery = z.object({ testCases: z.enum(['failed', 'all']).optional() });

export const Rerun = z
  .object({
    failedOnly: z.literal(true).optional(),
    projectTestCaseIds: z.array(uuid()).min(1).optional(),
  })
  .refine((b) => !(b.failedOnly && b.projectTestCaseIds), { message: 'failedOnly and projectTestCaseIds cannot be combined', path: ['failedOnly'] })
  .openapi('Rerun', {
    description: 'At most one of `failedOnly` and `projectTestCaseIds`; neither reruns every test of the run',
    not: { required: ['failedOnly', 'projectTestCaseIds'] },
  });

/** A started run as the start and rerun routes answer it. */
export const runRef = (appUrl: string, run: { id: string; shortId: string; testCount: number }) => ({
  id: run.id,
  shortId: run.shortId,
  url: `${appUrl}/runs/${run.shortId}`,
  testCount: run.testCount,
});

/** What a rerun body asks for (the schema has already refused both fields together). */
export const rerunSelection = (body: z.infer<typeof Rerun>): RerunSelection =>
  body.failedOnly ? { failedOnly: true } : body.projectTestCaseIds ? { testCaseIds: body.projectTestCaseIds } : { all: true };

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
    request: { params: RunParams, query: RunQuery },
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

/** What the run services need from the API's dependencies (the compatibility routes share it). */
export const runDeps = (deps: AppDeps): RunStartDeps => ({ db: deps.db, temporal: deps.temporal, runConcurrency: deps.config.PROCTOR_RUN_CONCURRENCY });

/** Evidence as the API shows it: the screenshot is linked as `screenshotUrl`, never by its storage key. */
function publicEvidence(evidence: FailureEvidence | null) {
  if (!evidence) return null;
  const { screenshotKey: _key, ...shown } = evidence;
  return shown;
}

/** The API view of a run with the tests `findRunWithTests` brought (none unless asked); the compatibility routes share it. */
export async function runView(deps: AppDeps, run: RunWithTests) {
  const link = async (key: string | null) => (key ? deps.blobs.presignGet(key, deps.config.PROCTOR_URL_TTL_SECONDS) : null);
  // The tests come aggregated as JSON: timestamps are strings there, normalised to the API's ISO form.
  const isoText = (d: string | null) => (d ? new Date(d).toISOString() : null);
  return {
    ...toRunFields(run, deps.config.appUrl),
    error: run.error,
    rerunOf: run.rerun_of_short_id,
    runTestCases: await Promise.all(
      run.tests.map(async (r) => ({
        id: r.id,
        shortId: r.test_case_id ?? r.id,
        name: r.name,
        status: r.status,
        result: r.result,
        resultTitle: r.result_title,
        evaluationThought: r.error,
        promptGoal: r.goal,
        promptExamples: [] as string[],
        inPlan: r.in_plan,
        environmentUrl: r.environment_url,
        failedStepIndex: r.failed_step_index,
        error: r.error,
        healedSteps: (r.healed as { index: number; from?: string | null; to: string; via: string; reason?: string }[] | null) ?? [],
        changes: r.changes ?? [],
        failureKind: r.failure_kind,
        evidence: publicEvidence(r.evidence),
        flaky: r.flaky,
        attempts: r.attempts,
        quarantined: r.quarantined,
        screenshotUrl: await link(r.screenshot_key),
        traceUrl: await link(r.trace_key),
        durationMs: r.duration_ms,
        startedAt: isoText(r.started_at),
        finishedAt: isoText(r.finished_at),
      })),
    ),
  };
}

export function registerRuns(app: OpenApiApp): void {
  app.openapi(routes.start, async (c) => {
    const deps = c.get('deps');
    // Validated by the route when present; an absent body means "the default plan, no overrides".
    const body = c.req.valid('json') ?? StartRun.parse({});
    const run = await runTestPlan(runDeps(deps), {
      projectId: c.get('caller').projectId,
      testPlanShortId: body.testPlanShortId,
      applications: body.applications,
      meta: body satisfies RunMetadata,
    });
    return c.json(
      { success: true as const, run: { ...runRef(deps.config.appUrl, run), testPlan: { name: run.plan.name, shortId: run.plan.shortId } } },
      200,
    );
  });

  app.openapi(routes.get, async (c) => {
    const deps = c.get('deps');
    const run = await findRunWithTests(deps.db, c.get('caller').projectId, c.req.valid('param').shortId, c.req.valid('query').testCases);
    if (!run) throw notFound('Run');
    return c.json(await runView(deps, run), 200);
  });

  app.openapi(routes.rerun, async (c) => {
    const deps = c.get('deps');
    const selection = rerunSelection(c.req.valid('json') ?? {});
    const run = await rerun(runDeps(deps), { projectId: c.get('caller').projectId, runShortId: c.req.valid('param').shortId, selection });
    return c.json({ success: true as const, run: runRef(deps.config.appUrl, run) }, 200);
  });

  app.openapi(routes.cancel, async (c) => {
    const deps = c.get('deps');
    await cancelRun(deps, { projectId: c.get('caller').projectId, runShortId: c.req.valid('param').shortId });
    return c.json({ success: true as const, status: 'CANCELLING' }, 202);
  });
}
