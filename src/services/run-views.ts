// Runs in their API shape, as the run routes, the compatibility routes and the MCP run tools answer them.
import type { z } from '@hono/zod-openapi';
import { findIdByShortId } from '../db/queries/lookups.js';
import {
  findRunWithTests,
  listRuns,
  toRunFields,
  type RunTestSelection,
  type RunWithTests,
} from '../db/queries/runs.js';
import { NotFoundError } from '../domain/errors.js';
import type { FailureEvidence } from '../domain/verdicts.js';
import type { Rerun } from '../schemas/runs.js';
import type { RerunSelection } from './runs.js';
import { usageTotals } from './llm-usage.js';
import type { ServiceContext } from './context.js';

export type { RunMetadata, RunWithTests } from '../db/queries/runs.js';

/** A started run as the start and rerun routes answer it. */
export const runRef = (appUrl: string, run: { id: string; shortId: string; testCount: number }) => ({
  id: run.id,
  shortId: run.shortId,
  url: `${appUrl}/runs/${run.shortId}`,
  testCount: run.testCount,
});

/** What a rerun body asks for (the schema has already refused both fields together). */
export const rerunSelection = (body: z.infer<typeof Rerun>): RerunSelection =>
  body.failedOnly
    ? { failedOnly: true }
    : body.projectTestCaseIds
      ? { testCaseIds: body.projectTestCaseIds }
      : { all: true };

/** Evidence as the API shows it: the screenshot is linked as `screenshotUrl`, never by its storage key. */
function publicEvidence(evidence: FailureEvidence | null) {
  if (!evidence) return null;
  const { screenshotKey: _key, ...shown } = evidence;
  return shown;
}

/** The API view of a run with the tests `findRunWithTests` brought (none unless asked); the compatibility routes share it. */
export async function runView(deps: ServiceContext<'blobs' | 'appUrl' | 'urlTtlSeconds'>, run: RunWithTests) {
  const link = async (key: string | null) => (key ? deps.blobs.presignGet(key, deps.urlTtlSeconds) : null);
  // The tests come aggregated as JSON: timestamps are strings there, normalised to the API's ISO form.
  const isoText = (d: string | null) => (d ? new Date(d).toISOString() : null);
  return {
    ...toRunFields(run, deps.appUrl),
    error: run.error,
    rerunOf: run.rerun_of_short_id,
    traceId: run.trace_id ?? null,
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
        // QA.tech documents a string or null; Proctor keeps no prompt examples, so null (an array broke typed clients).
        promptExamples: null as string | null,
        inPlan: r.in_plan,
        environmentUrl: r.environment_url,
        failedStepIndex: r.failed_step_index,
        error: r.error,
        healedSteps:
          (r.healed as { index: number; from?: string | null; to: string; via: string; reason?: string }[] | null) ??
          [],
        changes: r.changes ?? [],
        failureKind: r.failure_kind,
        evidence: publicEvidence(r.evidence),
        flaky: r.flaky,
        attempts: r.attempts,
        quarantined: r.quarantined,
        screenshotUrl: await link(r.screenshot_key),
        traceUrl: await link(r.trace_key),
        downloads: await Promise.all(
          (r.downloads ?? []).map(async ({ key, ...file }) => ({ ...file, url: (await link(key))! })),
        ),
        // Null when none were collected (a mobile test, a test from before quality signals).
        signalCounts: r.signal_counts ?? null,
        durationMs: r.duration_ms,
        startedAt: isoText(r.started_at),
        finishedAt: isoText(r.finished_at),
      })),
    ),
  };
}

/** The run of the project with the tests asked for, or NotFoundError (also when it belongs to another project). */
export async function requireRun(
  { db }: ServiceContext,
  projectId: string,
  runShortId: string,
  tests: RunTestSelection | undefined,
): Promise<RunWithTests> {
  const run = await findRunWithTests(db, projectId, runShortId, tests);
  if (!run) throw new NotFoundError('Run');
  return run;
}

/** A run in its API shape, as `GET /runs/{shortId}` and the MCP `get_run` tool answer it. */
export async function getRunView(
  deps: ServiceContext<'blobs' | 'appUrl' | 'urlTtlSeconds'>,
  input: { projectId: string; runShortId: string; tests: RunTestSelection | undefined },
) {
  const run = await requireRun(deps, input.projectId, input.runShortId, input.tests);
  // What its heals' LLM calls came to (an extension to the spec; replays need no model).
  return { ...(await runView(deps, run)), usage: await usageTotals(deps, input.projectId, { runId: run.id }) };
}

/** A page of the project's runs, newest first, as `GET /runs` answers it; a named plan must be the project's. */
export async function listRunViews(
  deps: ServiceContext<'appUrl'>,
  input: { projectId: string; testPlanShortId?: string; status?: string; limit: number; offset: number },
) {
  let testPlanId: string | undefined;
  if (input.testPlanShortId) {
    testPlanId = await findIdByShortId(deps.db, 'test_plans', input.projectId, input.testPlanShortId);
    if (!testPlanId) throw new NotFoundError('Test plan');
  }
  const { rows, total } = await listRuns(deps.db, input.projectId, {
    testPlanId,
    status: input.status,
    limit: input.limit,
    offset: input.offset,
  });
  return {
    runs: rows.map((r) => ({ ...toRunFields(r, deps.appUrl), branch: r.branch, commitHash: r.commit_hash })),
    total,
  };
}
