import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { exportTestCaseSpec } from '../../services/test-case-export.js';
import { Params } from '../../schemas/test-cases.js';

const route = createRoute({
  method: 'get',
  path: '/v1/test-cases/{testCaseId}/playwright',
  tags: ['Test cases'],
  summary: 'Export the recorded steps as a runnable Playwright spec',
  description:
    "Returns a `@playwright/test` spec (TypeScript). The base URL defaults to the application's default environment and can be " +
    'overridden with the `PROCTOR_BASE_URL` environment variable; secret configs are read from environment variables of the same name ' +
    'and never appear in the file. A test that resumes from another carries its dependency chain: their steps run first, in the ' +
    'same page, so the spec passes on its own. Each step uses all its locators (`a.or(b)`), as replay does. 409 while the test case (or a ' +
    'test it resumes from) has no recorded steps.',
  security: bearerSecurity,
  request: { params: Params },
  responses: {
    200: { description: 'The spec file', content: { 'text/typescript': { schema: z.string() } } },
    ...errorResponses,
    409: json(ErrorSchema, 'No recorded steps yet'),
  },
});

export function registerTestCaseExport(app: OpenApiApp): void {
  app.openapi(route, async (c) => {
    const { fileName, spec } = await exportTestCaseSpec(c.get('services'), {
      projectId: c.get('caller').projectId,
      testCaseId: c.req.valid('param').testCaseId,
    });
    c.header('Content-Disposition', `attachment; filename="${fileName}"`);
    return c.body(spec, 200, { 'Content-Type': 'text/typescript; charset=utf-8' });
  });
}
