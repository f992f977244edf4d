import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { ApiError, notFound } from '../errors.js';
import { exportPlaywrightSpec } from '../../browser/export.js';
import { loadExecutionContext, type ExecutionContext } from '../../db/queries/execution.js';
import type { DB } from '../../db/database.js';
import { uuid } from '../schemas/common.js';

const route = createRoute({
  method: 'get',
  path: '/v1/test-cases/{testCaseId}/playwright',
  tags: ['Test cases'],
  summary: 'Export the recorded steps as a runnable Playwright spec',
  description:
    'Returns a `@playwright/test` spec (TypeScript). The base URL defaults to the application\'s default environment and can be ' +
    'overridden with the `PROCTOR_BASE_URL` environment variable; secret configs are read from environment variables of the same name ' +
    'and never appear in the file. A test that resumes from another carries its dependency chain: their steps run first, in the ' +
    'same page, so the spec passes on its own. Each step uses all its locators (`a.or(b)`), as replay does. 409 while the test case (or a ' +
    'test it resumes from) has no recorded steps.',
  security: bearerSecurity,
  request: { params: z.object({ testCaseId: uuid().openapi({ param: { name: 'testCaseId', in: 'path' } }) }) },
  responses: {
    200: { description: 'The spec file', content: { 'text/typescript': { schema: z.string() } } },
    ...errorResponses,
    409: json(ErrorSchema, 'No recorded steps yet'),
  },
});

const maxChain = 20;

/** The tests this one resumes from, root first; 409 when one of them has no recorded steps. */
async function resumeFromChain(db: DB, projectId: string, ctx: ExecutionContext): Promise<ExecutionContext[]> {
  const chain: ExecutionContext[] = [];
  const seen = new Set([ctx.testCase.id]);
  for (let id = ctx.testCase.resumeFromId; id && !seen.has(id) && chain.length < maxChain; ) {
    seen.add(id);
    const dependency = await loadExecutionContext(db, projectId, id);
    if (!dependency) break;
    if (!dependency.testCase.steps?.length) {
      throw new ApiError(409, `the test it resumes from ("${dependency.testCase.name}") has no recorded steps yet, so the export could not run on its own`);
    }
    chain.unshift(dependency);
    id = dependency.testCase.resumeFromId;
  }
  return chain;
}

export function registerTestCaseExport(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const { db } = c.get('deps');
    const { testCaseId } = c.req.valid('param');
    const ctx = await loadExecutionContext(db, c.get('caller').projectId, testCaseId.toLowerCase());
    if (!ctx) throw notFound('Test case');
    if (!ctx.testCase.steps?.length) throw new ApiError(409, `test case has no recorded steps yet (generation status ${ctx.testCase.generationStatus})`);
    const chain = await resumeFromChain(db, c.get('caller').projectId, ctx);
    const secret = new Set(chain.flatMap((d) => d.secretNames).concat(ctx.secretNames));
    const configs = Object.assign({}, ...chain.map((d) => d.configs), ctx.configs) as Record<string, string>;
    const spec = exportPlaywrightSpec({
      name: ctx.testCase.name,
      goal: ctx.testCase.goal,
      expectedResult: ctx.testCase.expectedResult,
      baseUrl: ctx.environmentUrl ?? 'http://localhost:3000',
      steps: ctx.testCase.steps,
      dependencies: chain.map((d) => ({ name: d.testCase.name, steps: d.testCase.steps! })),
      configs: Object.fromEntries(Object.entries(configs).map(([name, value]) => [name, { value: secret.has(name) ? '' : value, isSecret: secret.has(name) }])),
    });
    const fileName = `${ctx.testCase.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'test'}.spec.ts`;
    c.header('Content-Disposition', `attachment; filename="${fileName}"`);
    return c.body(spec, 200, { 'Content-Type': 'text/typescript; charset=utf-8' });
  });
}
