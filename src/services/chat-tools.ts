// What the chat assistant's tools do, as plain functions over the same queries and run creation the API uses.
// Each answers with a compact text for the model (ids, names, statuses); bad arguments are answered in words
// (ChatToolError, or a service's domain error) so the model can correct itself, never thrown at the workflow
// as failures. Creating test cases and runs goes through the same services as the API (same rules).
import type { DB } from '../db/database.js';
import { listApplications } from '../db/queries/applications.js';
import { chatRunId, findChatById, linkRun } from '../db/queries/chats.js';
import { listEnvironments } from '../db/queries/environments.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import { findRun, runTestRows } from '../db/queries/runs.js';
import { listTestPlans } from '../db/queries/test-plans.js';
import { getTestCase, listTestCases } from '../db/queries/test-cases.js';
import { isShortId, uuidPattern } from '../domain/short-ids.js';
import { idFromKey } from '../ids.js';
import { createPlanRun, createTestCasesRun } from './runs.js';
import { writeTestCase } from './test-cases.js';

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
  const applicationShortId = text(args, 'applicationShortId');
  const page = await listTestCases(ctx.db, ctx.projectId, { applicationShortId }, { limit: 50, offset: 0 });
  if (!page) throw new ChatToolError(`application ${applicationShortId} not found`);
  const { testCases, total } = page;
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
    ...(view.notCovered.length ? [`Not covered (the agent could not verify): ${view.notCovered.join('; ')}`] : []),
  ].join('\n');
}

/**
 * A new test case as the API creates it (disabled, GENERATING); the workflow runs its burn-in as a child. Its id
 * comes from `key` (the tool call's), so a retried activity answers with the test case its first attempt wrote.
 */
export async function createTestCaseTool(ctx: ChatToolContext, args: Args, key: string | undefined): Promise<{ testCaseId: string; name: string }> {
  const applicationShortId = text(args, 'applicationShortId', { required: true })!;
  if (!isShortId('application', applicationShortId)) throw new ChatToolError(`"${applicationShortId}" is not an application short id (app_…)`);
  const resumeFrom = text(args, 'resumeFromTestCaseId')?.toLowerCase() ?? null;
  if (resumeFrom && !isUuid(resumeFrom)) throw new ChatToolError(`test case ${resumeFrom} not found`);
  const created = await writeTestCase(ctx, {
    projectId: ctx.projectId,
    applicationShortId,
    name: text(args, 'name', { required: true, max: 80 })!,
    goal: text(args, 'goal', { required: true, max: 4000 })!,
    expectedResult: text(args, 'expectedResult', { max: 4000 }) ?? null,
    resumeFromDependencyProjectTestCaseId: resumeFrom,
  }, { id: key === undefined ? undefined : idFromKey(`chat-test-case:${key}`) });
  return { testCaseId: created.id, name: created.name };
}

/**
 * A run of a plan or of given test cases (plus their dependencies), on the conversation's environments; linked
 * to the conversation, which may read only the runs it started. Written here, started by the workflow.
 */
export async function createRunTool(ctx: ChatToolContext, args: Args, idempotencyKey: string): Promise<{ runId: string; runShortId: string; testCount: number }> {
  const chat = await findChatById(ctx.db, ctx.chatId);
  if (!chat) throw new ChatToolError('the conversation no longer exists');
  const testPlanShortId = text(args, 'testPlanShortId');
  const testCaseIds = Array.isArray(args.testCaseIds) ? args.testCaseIds.filter((v): v is string => typeof v === 'string') : [];
  if (!testPlanShortId && testCaseIds.length === 0) throw new ChatToolError('give testPlanShortId or testCaseIds');
  if (testPlanShortId && testCaseIds.length > 0) throw new ChatToolError('give testPlanShortId or testCaseIds, not both');
  const common = {
    projectId: ctx.projectId,
    applications: chat.applicationOverrides,
    dropUnrelatedOverrides: true,
    meta: { trigger: 'CHAT', actor: `chat ${chat.shortId}` },
    idempotencyKey,
  };
  const run = testPlanShortId ? await createPlanRun(ctx, { ...common, testPlanShortId }) : await createTestCasesRun(ctx, { ...common, testCaseIds });
  await linkRun(ctx.db, ctx.chatId, run.id);
  return { runId: run.id, runShortId: run.shortId, testCount: run.testCount };
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
