// What the chat assistant's tools do, as plain functions over the same queries and run creation the API uses.
// Each answers with a compact text for the model (ids, names, statuses); bad arguments are answered in words
// (ChatToolError) so the model can correct itself, never thrown at the workflow as failures.
// after H3 merge: create_test_case and run_tests call src/services/test-cases.ts and src/services/runs.ts.
import type { DB } from '../db/database.js';
import { listApplications } from '../db/queries/applications.js';
import { chatRunId, findChatById, linkRun } from '../db/queries/chats.js';
import { listEnvironments } from '../db/queries/environments.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import { collectRunTests, findRun, insertRun, resolveEnvironments, RunRequestError, runTestRows, type EnvironmentOverride } from '../db/queries/runs.js';
import { listTestPlans } from '../db/queries/test-plans.js';
import { findTestCaseRecords, getTestCase, insertTestCase, listTestCases, lockProjectTestCases } from '../db/queries/test-cases.js';
import { isShortId, uuidPattern } from '../domain/short-ids.js';
import { newId } from '../ids.js';
import { createPlanRun } from '../runs/create-run.js';

export class ChatToolError extends Error {
  override name = 'ChatToolError';
}

/** Concurrency of runs the assistant starts: the service's default (the API's PROCTOR_RUN_CONCURRENCY default). */
export const chatRunConcurrency = 100;

export interface ChatToolContext {
  db: DB;
  chatId: string;
  projectId: string;
}

type Args = Record<string, unknown>;

const text = (args: Args, key: string, opts: { required?: boolean; max?: number } = {}): string | undefined => {
  const value = args[key];
  if (value === undefined || value === null || value === '') {
    if (opts.required) throw new ChatToolError(`"${key}" is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ChatToolError(`"${key}" must be a string`);
  if (opts.max !== undefined && value.length > opts.max) throw new ChatToolError(`"${key}" must be at most ${opts.max} characters`);
  return value.trim();
};
const isUuid = (id: string) => new RegExp(uuidPattern).test(id);

export async function listApplicationsTool(ctx: ChatToolContext): Promise<string> {
  const apps = await listApplications(ctx.db, ctx.projectId);
  if (apps.length === 0) return 'No applications yet.';
  const lines: string[] = [];
  for (const app of apps) {
    const id = await findIdByShortId(ctx.db, 'applications', ctx.projectId, app.shortId);
    const envs = id ? await listEnvironments(ctx.db, ctx.projectId, id) : [];
    lines.push(`- ${app.name} (${app.shortId}, ${app.kind})`);
    for (const e of envs) lines.push(`  - environment ${e.name} (${e.shortId})${e.url ? ` ${e.url}` : ''}${e.isDefault ? ' [default]' : ''}`);
  }
  return lines.join('\n');
}

export async function listTestPlansTool(ctx: ChatToolContext): Promise<string> {
  const plans = await listTestPlans(ctx.db, ctx.projectId);
  if (plans.length === 0) return 'No test plans yet.';
  return plans.map((p) => `- ${p.name} (${p.shortId})${p.isDefault ? ' [default]' : ''}: ${p.testCases.length} test case(s)`).join('\n');
}

export async function listTestCasesTool(ctx: ChatToolContext, args: Args): Promise<string> {
  const appShortId = text(args, 'applicationShortId');
  let applicationId: string | undefined;
  if (appShortId) {
    applicationId = await findIdByShortId(ctx.db, 'applications', ctx.projectId, appShortId);
    if (!applicationId) throw new ChatToolError(`application ${appShortId} not found`);
  }
  const { testCases, total } = await listTestCases(ctx.db, ctx.projectId, { applicationId }, { limit: 50, offset: 0 });
  if (total === 0) return 'No test cases.';
  const lines = testCases.map((t) => `- ${t.name} (id ${t.id}, ${t.applicationName}, ${t.isEnabled ? 'enabled' : 'disabled'}, generation ${t.generationStatus})`);
  return `${total} test case(s)${total > testCases.length ? `, newest ${testCases.length} shown` : ''}:\n${lines.join('\n')}`;
}

export async function getTestCaseTool(ctx: ChatToolContext, args: Args): Promise<string> {
  const id = text(args, 'testCaseId', { required: true })!.toLowerCase();
  const view = isUuid(id) ? await getTestCase(ctx.db, ctx.projectId, id) : undefined;
  if (!view) throw new ChatToolError(`test case ${id} not found`);
  const steps = view.steps?.steps.map((s, i) => `  ${i + 1}. ${s.description ?? s.action}`) ?? [];
  return [
    `${view.name} (id ${view.id}) of ${view.applicationName}, ${view.isEnabled ? 'enabled' : 'disabled'}, generation ${view.generationStatus}${view.failureReason ? ` (${view.failureReason})` : ''}`,
    `Goal: ${view.goal ?? '-'}`,
    `Expected result: ${view.expectedResult ?? '-'}`,
    `Resume from: ${view.resumeFromDependencyProjectTestCaseId ?? 'none'}; wait for: ${view.waitForDependenciesProjectTestCaseIds.join(', ') || 'none'}`,
    steps.length ? `Steps:\n${steps.join('\n')}` : 'No recorded steps.',
  ].join('\n');
}

/** A new test case as the API creates it (disabled, GENERATING); the caller starts its burn-in. */
export async function createTestCaseTool(ctx: ChatToolContext, args: Args): Promise<{ testCaseId: string; name: string }> {
  const appShortId = text(args, 'applicationShortId', { required: true })!;
  const name = text(args, 'name', { required: true, max: 80 })!;
  const goal = text(args, 'goal', { required: true, max: 4000 })!;
  const expectedResult = text(args, 'expectedResult', { max: 4000 }) ?? null;
  const resumeFrom = text(args, 'resumeFromTestCaseId')?.toLowerCase() ?? null;
  if (!isShortId('application', appShortId)) throw new ChatToolError(`"${appShortId}" is not an application short id (app_…)`);
  const id = newId();
  await ctx.db.transaction().execute(async (trx) => {
    await lockProjectTestCases(trx, ctx.projectId);
    const applicationId = await findIdByShortId(trx, 'applications', ctx.projectId, appShortId);
    if (!applicationId) throw new ChatToolError(`application ${appShortId} not found`);
    if (resumeFrom) {
      // As the API checks it: browser state only carries over within one application.
      const [dependency] = isUuid(resumeFrom) ? await findTestCaseRecords(trx, ctx.projectId, [resumeFrom]) : [];
      if (!dependency) throw new ChatToolError(`test case ${resumeFrom} not found`);
      if (dependency.applicationId !== applicationId) throw new ChatToolError(`test case ${resumeFrom} belongs to another application; resume-from must be of the same application`);
    }
    await insertTestCase(trx, { id, projectId: ctx.projectId, applicationId, name, goal, expectedResult, labels: [], configIds: [], scenarioId: null, resumeFromTestCaseId: resumeFrom, waitForTestCaseIds: [] });
  });
  return { testCaseId: id, name };
}

/**
 * A run of a plan or of given test cases (plus their dependencies), on the conversation's environments; linked
 * to the conversation, which may read only the runs it started.
 */
export async function createRunTool(ctx: ChatToolContext, args: Args, idempotencyKey: string): Promise<{ runId: string; runShortId: string; testCount: number }> {
  const chat = await findChatById(ctx.db, ctx.chatId);
  if (!chat) throw new ChatToolError('the conversation no longer exists');
  const planShortId = text(args, 'testPlanShortId');
  const ids = Array.isArray(args.testCaseIds) ? args.testCaseIds.filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase()) : [];
  if (!planShortId && ids.length === 0) throw new ChatToolError('give testPlanShortId or testCaseIds');
  if (planShortId && ids.length > 0) throw new ChatToolError('give testPlanShortId or testCaseIds, not both');
  const meta = { trigger: 'CHAT', actor: `chat ${chat.shortId}` };
  try {
    let run: { id: string; shortId: string; testCount: number };
    if (planShortId) {
      run = await createPlanRun(ctx.db, ctx.projectId, { testPlanShortId: planShortId, applications: await overridesFor(ctx, chat.applicationOverrides, await planApplications(ctx, planShortId)), meta, idempotencyKey });
    } else {
      const found = await findTestCaseRecords(ctx.db, ctx.projectId, ids.filter(isUuid));
      const missing = ids.find((id) => !found.some((f) => f.id === id));
      if (missing) throw new ChatToolError(`test case ${missing} not found`);
      const tests = await collectRunTests(ctx.db, ctx.projectId, ids);
      const appIds = [...new Set(tests.map((t) => t.application_id))];
      const envs = await resolveEnvironments(ctx.db, ctx.projectId, appIds, null, await overridesFor(ctx, chat.applicationOverrides, appIds));
      const inserted = await insertRun(ctx.db, {
        projectId: ctx.projectId,
        planId: null,
        meta,
        idempotencyKey,
        tests: tests.map((t) => ({ testCase: t, inPlan: ids.includes(t.id), environmentUrl: envs.get(t.application_id)!.url, device: envs.get(t.application_id)!.device })),
      });
      run = { ...inserted, testCount: tests.length };
    }
    await linkRun(ctx.db, ctx.chatId, run.id);
    return { runId: run.id, runShortId: run.shortId, testCount: run.testCount };
  } catch (err) {
    if (err instanceof RunRequestError) throw new ChatToolError(err.message);
    throw err;
  }
}

async function planApplications(ctx: ChatToolContext, planShortId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('test_plans as p')
    .innerJoin('test_plan_test_cases as ptc', 'ptc.test_plan_id', 'p.id')
    .innerJoin('test_cases as t', 't.id', 'ptc.test_case_id')
    .select('ptc.test_case_id')
    .where('t.is_enabled', '=', true)
    .where('p.project_id', '=', ctx.projectId)
    .where('p.short_id', '=', planShortId)
    .execute();
  const tests = await collectRunTests(ctx.db, ctx.projectId, rows.map((r) => r.test_case_id));
  return [...new Set(tests.map((t) => t.application_id))];
}

/** The conversation's overrides for the applications this run touches (an override of an unrelated application is not an error here). */
async function overridesFor(ctx: ChatToolContext, overrides: EnvironmentOverride[], applicationIds: string[]): Promise<EnvironmentOverride[]> {
  const out: EnvironmentOverride[] = [];
  for (const o of overrides) {
    const id = await findIdByShortId(ctx.db, 'applications', ctx.projectId, o.applicationShortId);
    if (id && applicationIds.includes(id)) out.push(o);
  }
  return out;
}

/** Status, result and per-test results of a run, if this conversation started it. */
export async function runResultsTool(ctx: ChatToolContext, args: Args, appUrl: string): Promise<string> {
  const shortId = text(args, 'runShortId', { required: true })!;
  const runId = await chatRunId(ctx.db, ctx.chatId, shortId);
  if (!runId) throw new ChatToolError(`run ${shortId} was not started in this conversation; I can only show results of runs started here`);
  const run = (await findRun(ctx.db, ctx.projectId, shortId))!;
  const rows = await runTestRows(ctx.db, runId, false);
  const lines = rows.map((r) => `- ${r.name}: ${r.status}${r.result ? ` ${r.result}` : ''}${r.error ? ` (${r.error.slice(0, 200)})` : ''}`);
  return [`Run ${run.short_id}: status ${run.status}, result ${run.result ?? 'none yet'}, ${appUrl}/runs/${run.short_id}`, ...lines].join('\n');
}
