// What the chat assistant's tools do, as plain functions over the same queries and run creation the API uses.
// Each answers with a compact text for the model (ids, names, statuses); arguments arrive validated by the tool's
// schema (src/services/tools), and what is still refused is answered in words (ChatToolError, or a service's domain
// error) so the model can correct itself, never thrown at the workflow as failures. Creating test cases and runs
// goes through the same services as the API (same rules).
import { listApplications } from '../db/queries/applications.js';
import { chatRunId, findChatById, linkRun } from '../db/queries/chats.js';
import { listEnvironments } from '../db/queries/environments.js';
import { findIdByShortId } from '../db/queries/lookups.js';
import { findRun, runTestRows } from '../db/queries/runs.js';
import { listTestPlans } from '../db/queries/test-plan-views.js';
import { getTestCase, listTestCases } from '../db/queries/test-case-views.js';
import { idFromKey } from '../ids.js';
import { listRunViews } from './run-views.js';
import { createPlanRun, createTestCasesRun } from './runs.js';
import { writeTestCase } from './test-cases.js';
import { ChatToolError, type ToolContext } from './tools/tool.js';

/** Concurrency of runs the assistant starts: the service's default (the API's PROCTOR_RUN_CONCURRENCY default). */
export const chatRunConcurrency = 100;

/** The conversation a tool needs (a run is linked to it, results are shown only of its runs). */
const chatOf = (ctx: ToolContext): string => {
  if (!ctx.chatId) throw new ChatToolError('this tool runs only in a conversation');
  return ctx.chatId;
};

export async function listApplicationsTool(ctx: ToolContext): Promise<string> {
  const apps = await listApplications(ctx.db, ctx.projectId);
  if (apps.length === 0) return 'No applications yet.';
  const lines: string[] = [];
  for (const app of apps) {
    const id = await findIdByShortId(ctx.db, 'applications', ctx.projectId, app.shortId);
    const envs = id ? await listEnvironments(ctx.db, ctx.projectId, id) : [];
    lines.push(`- ${app.name} (${app.shortId}, ${app.kind})`);
    for (const e of envs)
      lines.push(
        `  - environment ${e.name} (${e.shortId})${e.url ? ` ${e.url}` : ''}${e.isDefault ? ' [default]' : ''}`,
      );
  }
  return lines.join('\n');
}

export async function listTestPlansTool(ctx: ToolContext): Promise<string> {
  const plans = await listTestPlans(ctx.db, ctx.projectId);
  if (plans.length === 0) return 'No test plans yet.';
  return plans
    .map((p) => `- ${p.name} (${p.shortId})${p.isDefault ? ' [default]' : ''}: ${p.testCases.length} test case(s)`)
    .join('\n');
}

export async function listRunsTool(
  ctx: ToolContext,
  input: { testPlanShortId?: string; status?: string; limit: number },
): Promise<string> {
  const { runs, total } = await listRunViews(ctx, { projectId: ctx.projectId, ...input, offset: 0 });
  if (total === 0) return 'No runs.';
  const lines = runs.map(
    (r) =>
      `- ${r.shortId}: ${r.status}${r.result ? ` ${r.result}` : ''}, ${r.testCount} test(s)${r.testPlan ? `, plan ${r.testPlan.name}` : ''}, ${r.trigger}, ${r.createdAt}`,
  );
  return `${total} run(s)${total > runs.length ? `, newest ${runs.length} shown` : ''}:\n${lines.join('\n')}`;
}

export async function listTestCasesTool(
  ctx: ToolContext,
  { applicationShortId }: { applicationShortId?: string },
): Promise<string> {
  const page = await listTestCases(ctx.db, ctx.projectId, { applicationShortId }, { limit: 50, offset: 0 });
  if (!page) throw new ChatToolError(`application ${applicationShortId} not found`);
  const { testCases, total } = page;
  if (total === 0) return 'No test cases.';
  const lines = testCases.map(
    (t) =>
      `- ${t.name} (id ${t.id}, ${t.applicationName}, ${t.isEnabled ? 'enabled' : 'disabled'}, generation ${t.generationStatus})`,
  );
  return `${total} test case(s)${total > testCases.length ? `, newest ${testCases.length} shown` : ''}:\n${lines.join('\n')}`;
}

export async function getTestCaseTool(ctx: ToolContext, input: { testCaseId: string }): Promise<string> {
  const id = input.testCaseId.toLowerCase();
  const view = await getTestCase(ctx.db, ctx.projectId, id);
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
export async function createTestCaseTool(
  ctx: ToolContext,
  input: {
    applicationShortId: string;
    name: string;
    goal: string;
    expectedResult?: string;
    resumeFromTestCaseId?: string;
  },
  key: string | undefined,
): Promise<{ testCaseId: string; name: string }> {
  const created = await writeTestCase(
    ctx,
    {
      projectId: ctx.projectId,
      applicationShortId: input.applicationShortId,
      name: input.name,
      goal: input.goal,
      expectedResult: input.expectedResult || null,
      resumeFromDependencyProjectTestCaseId: input.resumeFromTestCaseId?.toLowerCase() ?? null,
    },
    { id: key === undefined ? undefined : idFromKey(`chat-test-case:${key}`) },
  );
  return { testCaseId: created.id, name: created.name };
}

/**
 * A run of a plan or of given test cases (plus their dependencies), on the conversation's environments; linked
 * to the conversation, which may read only the runs it started. Written here, started by the workflow.
 */
export async function createRunTool(
  ctx: ToolContext,
  { testPlanShortId, testCaseIds = [] }: { testPlanShortId?: string; testCaseIds?: string[] },
  idempotencyKey: string | undefined,
): Promise<{ runId: string; runShortId: string; testCount: number }> {
  const chatId = chatOf(ctx);
  const chat = await findChatById(ctx.db, chatId);
  if (!chat) throw new ChatToolError('the conversation no longer exists');
  if (!testPlanShortId && testCaseIds.length === 0) throw new ChatToolError('give testPlanShortId or testCaseIds');
  if (testPlanShortId && testCaseIds.length > 0)
    throw new ChatToolError('give testPlanShortId or testCaseIds, not both');
  const common = {
    projectId: ctx.projectId,
    applications: chat.applicationOverrides,
    dropUnrelatedOverrides: true,
    meta: { trigger: 'CHAT', actor: `chat ${chat.shortId}` },
    idempotencyKey,
  };
  const run = testPlanShortId
    ? await createPlanRun(ctx, { ...common, testPlanShortId })
    : await createTestCasesRun(ctx, { ...common, testCaseIds });
  await linkRun(ctx.db, chatId, run.id);
  return { runId: run.id, runShortId: run.shortId, testCount: run.testCount };
}

/** Status, result and per-test results of a run, if this conversation started it. */
export async function runResultsTool(
  ctx: ToolContext,
  { runShortId: shortId }: { runShortId: string },
): Promise<string> {
  const runId = await chatRunId(ctx.db, chatOf(ctx), shortId);
  if (!runId)
    throw new ChatToolError(
      `run ${shortId} was not started in this conversation; I can only show results of runs started here`,
    );
  const run = (await findRun(ctx.db, ctx.projectId, shortId))!;
  const rows = await runTestRows(ctx.db, runId, false);
  const lines = rows.map(
    (r) => `- ${r.name}: ${r.status}${r.result ? ` ${r.result}` : ''}${r.error ? ` (${r.error.slice(0, 200)})` : ''}`,
  );
  return [
    `Run ${run.short_id}: status ${run.status}, result ${run.result ?? 'none yet'}, ${ctx.appUrl}/runs/${run.short_id}`,
    ...lines,
  ].join('\n');
}
