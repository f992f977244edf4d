// Runs as business operations: write a run of a plan (environments by precedence), start it, rerun part of one,
// cancel one. Used by the API, the schedule activity and (next) the chat assistant's tools.
import type { DeviceSettings } from '../domain/device.js';
import type { DB } from '../db/database.js';
import { findRun, insertRun, markRunError, runTestRows, type RunMetadata, type RunRow } from '../db/queries/runs.js';
import { collectRunTests, planTestCaseIds } from '../db/queries/run-selection.js';
import { getTestPlan, testPlanShortIdOf } from '../db/queries/test-plan-views.js';
import { defaultTestPlanId } from '../db/queries/projects.js';
import type { ApplicationOverride, EnvironmentOverride } from '../domain/precedence.js';
import { cancelPlanRun, startPlanRun } from '../temporal/lifecycle.js';
import type { ProctorAttributes } from '../../workflows/search-attributes-contract.js';
import { findTestCaseRecords } from '../db/queries/test-cases.js';
import { uuidPattern } from '../domain/short-ids.js';
import { ConflictError, InvalidError, NotFoundError, NothingToRunError, UnavailableError } from '../domain/errors.js';
import type { ServiceContext } from './context.js';
import { resolveEnvironments, runTestEnvironment } from './run-environments.js';

export type { ApplicationOverride, EnvironmentOverride };

export interface CreatedRun {
  id: string;
  shortId: string;
  testCount: number;
  plan: { id: string; name: string; shortId: string };
}

export interface CreatePlanRunInput {
  projectId: string;
  /** The plan by short id, or by id (schedules); neither: the project's default plan. */
  testPlanShortId?: string;
  testPlanId?: string;
  applications?: ApplicationOverride[];
  /** As in CreateTestCasesRunInput. */
  dropUnrelatedOverrides?: boolean;
  meta: RunMetadata;
  /** A second create with the same key returns the first run (a retried scheduled tick). */
  idempotencyKey?: string;
}

/**
 * Writes a run of a plan: the plan's enabled test cases plus their transitive dependencies, each with its
 * application's environment by precedence. Throws NothingToRunError when the plan has no enabled test case.
 */
export async function createPlanRun(deps: ServiceContext, input: CreatePlanRunInput): Promise<CreatedRun> {
  const { db } = deps;
  const { projectId } = input;
  let planShortId = input.testPlanShortId;
  if (!planShortId) {
    const planId = input.testPlanId ?? (await defaultTestPlanId(db, projectId));
    const shortId = planId ? await testPlanShortIdOf(db, projectId, planId) : undefined;
    if (!shortId) {
      if (input.testPlanId) throw new NotFoundError('Test plan');
      throw new InvalidError('the project has no default test plan: pass testPlanShortId or make a plan the default');
    }
    planShortId = shortId;
  }
  const plan = await getTestPlan(db, projectId, planShortId);
  if (!plan) throw new NotFoundError('Test plan');

  const roots = await planTestCaseIds(db, plan.id);
  if (roots.length === 0) throw new NothingToRunError(`test plan "${plan.name}" has no enabled test cases`);
  const run = await writeRun(db, { ...input, planId: plan.id, roots });
  return { ...run, plan: { id: plan.id, name: plan.name, shortId: plan.shortId } };
}

export interface CreateTestCasesRunInput {
  projectId: string;
  /** The chosen test cases by id; their dependencies join the run (not as chosen ones). */
  testCaseIds: string[];
  applications?: ApplicationOverride[];
  /**
   * Drop overrides of applications with no test case in this run instead of refusing them: a conversation's
   * overrides cover every application it may touch, a run only some.
   */
  dropUnrelatedOverrides?: boolean;
  meta: RunMetadata;
  idempotencyKey?: string;
}

/** Writes a run of given test cases (no plan): the chat assistant's and a change review's runs. */
export async function createTestCasesRun(
  deps: ServiceContext,
  input: CreateTestCasesRunInput,
): Promise<Omit<CreatedRun, 'plan'>> {
  const { db } = deps;
  const { projectId } = input;
  const ids = [...new Set(input.testCaseIds.map((id) => id.toLowerCase()))];
  if (ids.length === 0) throw new InvalidError('name at least one test case to run');
  const uuid = new RegExp(uuidPattern);
  const found = new Set(
    (
      await findTestCaseRecords(
        db,
        projectId,
        ids.filter((id) => uuid.test(id)),
      )
    ).map((r) => r.id),
  );
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw new NotFoundError('Test case', missing);
  return writeRun(db, { ...input, planId: null, roots: ids });
}

/**
 * Writes a run of `roots` (a plan's enabled test cases, or the chosen ones) and their transitive dependencies, each
 * test with its application's environment by precedence (the plan's, when the run has one). Only a root counts as
 * in the plan: a dependency runs first but is not what was asked for.
 */
async function writeRun(
  db: DB,
  input: Omit<CreateTestCasesRunInput, 'testCaseIds'> & { planId: string | null; roots: string[] },
): Promise<Omit<CreatedRun, 'plan'>> {
  const { projectId, planId, roots } = input;
  const tests = await collectRunTests(db, projectId, roots);
  const envs = await resolveEnvironments(
    db,
    projectId,
    [...new Set(tests.map((t) => t.application_id))],
    planId,
    input.applications ?? [],
    input.dropUnrelatedOverrides,
  );
  const asked = new Set(roots);
  const run = await insertRun(db, {
    projectId,
    planId,
    meta: input.meta,
    idempotencyKey: input.idempotencyKey,
    tests: tests.map((t) => ({
      testCase: t,
      inPlan: asked.has(t.id),
      ...runTestEnvironment(envs.get(t.application_id)!),
    })),
  });
  return { ...run, testCount: tests.length };
}

/**
 * Starts a written run's workflow; when Temporal does not take it the run is marked ERROR, not left INITIATED.
 * `attributes`: the plan and the trigger, which the Temporal UI filters runs by (the project and the run are added).
 */
async function startRun(
  deps: ServiceContext<'temporal' | 'runConcurrency'>,
  projectId: string,
  run: { id: string; shortId: string; testCount: number },
  label: string | null,
  attributes: ProctorAttributes,
): Promise<void> {
  try {
    const summary = `Run ${run.shortId}${label ? ` ${label}` : ''}: ${run.testCount} test(s)`;
    await startPlanRun(
      deps.temporal,
      { runId: run.id, runShortId: run.shortId, projectId, concurrency: deps.runConcurrency, heal: true },
      summary,
      attributes,
    );
  } catch (err) {
    const message = `could not start the run: ${err instanceof Error ? err.message : String(err)}`;
    await markRunError(deps.db, run.id, message);
    throw new UnavailableError(`${message} (run ${run.shortId} is marked ERROR)`);
  }
}

/** Writes a run of a plan and starts it: `POST /v1/run`, and the chat's "run these tests". */
export async function runTestPlan(
  deps: ServiceContext<'temporal' | 'runConcurrency'>,
  input: CreatePlanRunInput,
): Promise<CreatedRun> {
  const run = await createPlanRun(deps, input);
  await startRun(deps, input.projectId, run, `of plan '${run.plan.name}'`, {
    plan: run.plan.shortId,
    trigger: input.meta.trigger,
  });
  return run;
}

/** Writes a run of given test cases (plus their dependencies, no plan) and starts it: the MCP tool `run_test_cases`. */
export async function runTestCases(
  deps: ServiceContext<'temporal' | 'runConcurrency'>,
  input: CreateTestCasesRunInput,
): Promise<Omit<CreatedRun, 'plan'>> {
  const run = await createTestCasesRun(deps, input);
  await startRun(deps, input.projectId, run, null, { trigger: input.meta.trigger });
  return run;
}

/** Which tests of a run to run again: its failed ones, named ones (each must be in the run), or all. */
export type RerunSelection = { failedOnly: true } | { testCaseIds: string[] } | { all: true };

const terminal = new Set(['COMPLETED', 'ERROR', 'CANCELLED']);

/** The root test cases of a rerun (their dependencies are added when the run is written). */
export function rerunRoots(
  original: Pick<RunRow, 'status' | 'short_id'>,
  rows: { test_case_id: string | null; result: string | null }[],
  selection: RerunSelection,
): string[] {
  let roots: string[];
  if ('failedOnly' in selection) {
    if (!terminal.has(original.status))
      throw new ConflictError('the run has not ended yet: rerun its failed tests once it has');
    roots = rows.filter((r) => r.result !== 'PASSED').flatMap((r) => (r.test_case_id ? [r.test_case_id] : []));
  } else if ('testCaseIds' in selection) {
    const inRun = new Set(rows.map((r) => r.test_case_id));
    roots = selection.testCaseIds.map((id) => id.toLowerCase());
    const missing = roots.find((id) => !inRun.has(id));
    if (missing) throw new NotFoundError(`Test case ${missing} in run ${original.short_id}`);
  } else {
    roots = rows.flatMap((r) => (r.test_case_id ? [r.test_case_id] : []));
  }
  if (roots.length === 0) throw new NothingToRunError('nothing to rerun: every test of the run passed');
  return roots;
}

/** A new run of part of an old one, on the same environments and devices, started. */
export async function rerun(
  deps: ServiceContext<'temporal' | 'runConcurrency'>,
  input: { projectId: string; runShortId: string; selection: RerunSelection },
): Promise<{ id: string; shortId: string; testCount: number }> {
  const { db } = deps;
  const original = await findRun(db, input.projectId, input.runShortId);
  if (!original) throw new NotFoundError('Run');
  const rows = await runTestRows(db, original.id, false);
  const tests = await collectRunTests(db, input.projectId, rerunRoots(original, rows, input.selection));
  // Same environments as the original run: a rerun answers "does it pass now", not "on another environment".
  const byTest = new Map(rows.map((r) => [r.test_case_id, r]));
  const written = await insertRun(db, {
    projectId: input.projectId,
    planId: original.test_plan_id,
    rerunOf: original.id,
    meta: {
      trigger: original.trigger,
      actor: original.actor ?? undefined,
      branch: original.branch ?? undefined,
      commitHash: original.commit_hash ?? undefined,
      repository: original.repository ?? undefined,
      notifications: original.notifications ?? undefined,
    },
    tests: tests.map((t) => ({
      testCase: t,
      // As in the original run: a dependency pulled in by the rerun is still a plan member if it was one.
      inPlan: byTest.get(t.id)?.in_plan ?? false,
      environmentUrl: byTest.get(t.id)?.environment_url ?? null,
      buildId: byTest.get(t.id)?.application_build_id ?? null,
      device: (byTest.get(t.id)?.device as DeviceSettings | null | undefined) ?? null,
    })),
  });
  const run = { ...written, testCount: tests.length };
  const plan = original.test_plan_id ? await testPlanShortIdOf(db, input.projectId, original.test_plan_id) : undefined;
  await startRun(deps, input.projectId, run, `(rerun of ${original.short_id})`, { plan, trigger: original.trigger });
  return run;
}

/** Asks a run that has not ended to stop. */
export async function cancelRun(
  deps: ServiceContext<'temporal'>,
  input: { projectId: string; runShortId: string },
): Promise<void> {
  const run = await findRun(deps.db, input.projectId, input.runShortId);
  if (!run) throw new NotFoundError('Run');
  if (terminal.has(run.status)) throw new ConflictError(`the run already ended (${run.status})`);
  await cancelPlanRun(deps.temporal, run.short_id);
}
