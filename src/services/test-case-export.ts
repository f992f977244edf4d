import { exportPlaywrightSpec } from '../browser/export/export.js';
import type { DB } from '../db/database.js';
import { loadExecutionContext, type ExecutionContext } from '../db/queries/execution.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { accessForTarget } from '../db/queries/environment-access.js';
import { blankSecrets } from '../domain/environment-access.js';
import type { ServiceContext } from './context.js';

const maxChain = 20;

/** The tests this one resumes from, root first; ConflictError when one of them has no recorded steps. */
async function resumeFromChain(db: DB, projectId: string, ctx: ExecutionContext): Promise<ExecutionContext[]> {
  const chain: ExecutionContext[] = [];
  const seen = new Set([ctx.testCase.id]);
  for (let id = ctx.testCase.resumeFromId; id && !seen.has(id) && chain.length < maxChain;) {
    seen.add(id);
    const dependency = await loadExecutionContext(db, projectId, id);
    if (!dependency) break;
    if (!dependency.testCase.steps?.length) {
      throw new ConflictError(
        `the test it resumes from ("${dependency.testCase.name}") has no recorded steps yet, so the export could not run on its own`,
      );
    }
    chain.unshift(dependency);
    id = dependency.testCase.resumeFromId;
  }
  return chain;
}

/**
 * A test case's recorded steps as a runnable `@playwright/test` spec, with the chain of tests it resumes from
 * in front; secret configs are left for environment variables. The API's export route and the dashboard's
 * download both serve this.
 */
export async function exportTestCaseSpec(
  { db }: ServiceContext,
  input: { projectId: string; testCaseId: string },
): Promise<{ fileName: string; spec: string }> {
  const ctx = await loadExecutionContext(db, input.projectId, input.testCaseId.toLowerCase());
  if (!ctx) throw new NotFoundError('Test case');
  if (!ctx.testCase.steps?.length)
    throw new ConflictError(`test case has no recorded steps yet (generation status ${ctx.testCase.generationStatus})`);
  const chain = await resumeFromChain(db, input.projectId, ctx);
  const secret = new Set(chain.flatMap((d) => d.secretNames).concat(ctx.secretNames));
  const configs = Object.assign({}, ...chain.map((d) => d.configs), ctx.configs) as Record<string, string>;
  const totp = new Set(chain.flatMap((d) => d.totpNames).concat(ctx.totpNames));
  const access = ctx.environmentUrl ? await accessForTarget(db, ctx.application.id, ctx.environmentUrl) : null;
  const spec = exportPlaywrightSpec({
    name: ctx.testCase.name,
    goal: ctx.testCase.goal,
    expectedResult: ctx.testCase.expectedResult,
    baseUrl: ctx.environmentUrl ?? 'http://localhost:3000',
    steps: ctx.testCase.steps,
    dependencies: chain.map((d) => ({ name: d.testCase.name, steps: d.testCase.steps! })),
    configs: Object.fromEntries(
      Object.entries(configs).map(([name, value]) => [
        name,
        { value: secret.has(name) ? '' : value, isSecret: secret.has(name), isTotp: totp.has(name) },
      ]),
    ),
    ...(access && { access: blankSecrets(access) }),
  });
  const fileName = `${
    ctx.testCase.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'test'
  }.spec.ts`;
  return { fileName, spec };
}
