import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted } from '../schemas/common.js';
import {
  CreateTestCase,
  UpdateTestCase,
  TestCaseDetailSchema,
  CreatedTestCase,
  ListQuery,
  TestCaseList,
  Params,
} from '../schemas/test-cases.js';
import { notFound } from '../errors.js';
import { getTestCase, listTestCases } from '../../db/queries/test-cases.js';
import { createTestCase, deleteTestCase, updateTestCase } from '../../services/test-cases.js';

const tags = ['Test cases'];
const base = '/v1/test-cases';

const referenceNotes =
  'References must belong to the project, else 404: `Application not found`, `Scenario not found`, `Config not found: <cfg_…>`, ' +
  '`Test case not found: <id>`. Dependency rules (400): a test case cannot depend on itself, directly or through other test cases ' +
  '(the message names the cycle; both kinds of dependency count), and its resume-from dependency must be a test case of the same ' +
  'application, because browser state only carries over within one application. A rejected request writes nothing.';

const routes = {
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Create a test case; its steps are then generated automatically',
    description:
      'The test case is created disabled with `generationStatus` GENERATING, and a burn-in starts that executes the goal against the ' +
      'application and records the steps. It must be enabled (after generation COMPLETED) before test plans run it. ' +
      `${referenceNotes} If the burn-in cannot be started (the workflow service is unavailable), the test case is kept with ` +
      '`generationStatus` FAILED and `failureReason` "could not start generation: …", and the answer is a 503.',
    request: { body: jsonBody(CreateTestCase) },
    responses: {
      200: json(CreatedTestCase, 'Created; generation has started'),
      503: json(ErrorSchema, 'Saved, but generation could not be started; the test case is marked FAILED'),
      ...errorResponses,
    },
  }),
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: 'List test cases, newest first',
    request: { query: ListQuery },
    responses: { 200: json(TestCaseList, 'One page of matching test cases'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get', path: `${base}/{testCaseId}`, tags, security: bearerSecurity,
    summary: 'Get a test case with its dependencies and recorded steps',
    request: { params: Params },
    responses: { 200: json(TestCaseDetailSchema, 'The test case'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch', path: `${base}/{testCaseId}`, tags, security: bearerSecurity,
    summary: 'Enable or disable a test case, rename it, change its goal, labels or dependencies',
    description:
      'Enabling a test case whose generation has not COMPLETED is a 409: it has no steps to run. Changing `goal` or `expectedResult` ' +
      `does not regenerate the steps. ${referenceNotes}`,
    request: { params: Params, body: jsonBody(UpdateTestCase) },
    responses: { 200: json(TestCaseDetailSchema, 'Updated'), 409: json(ErrorSchema, 'Enabling before the steps are recorded'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{testCaseId}`, tags, security: bearerSecurity,
    summary: 'Delete a test case',
    description:
      'Refused (409) while other test cases depend on it; the message lists them. Test plans that listed it no longer do. ' +
      'A burn-in still running for it is not cancelled: it finds the test case gone and stops.',
    request: { params: Params },
    responses: { 200: json(Deleted, 'Deleted'), 409: json(ErrorSchema, 'Other test cases depend on it'), ...errorResponses },
  }),
};

export function registerTestCases(app: OpenApiApp): void {
  app.openapi(routes.create, async (c) => {
    const { db, temporal, config } = c.get('deps');
    const created = await createTestCase({ db, temporal, logger: c.get('logger') }, { ...c.req.valid('json'), projectId: c.get('caller').projectId });
    return c.json({ success: true, testCase: { ...created, url: `${config.appUrl}/test-cases/${created.id}` } }, 200);
  });

  app.openapi(routes.list, async (c) => {
    const { db } = c.get('deps');
    const { projectId } = c.get('caller');
    const query = c.req.valid('query');
    const labelFilter = query.labels
      ?.split(',')
      .map((l) => l.trim())
      .filter((l) => l.length > 0);
    const page = { limit: query.limit, offset: query.offset };
    const found = await listTestCases(
      db,
      projectId,
      { applicationShortId: query.applicationShortId, labels: labelFilter, isEnabled: query.isEnabled === undefined ? undefined : query.isEnabled === 'true' },
      page,
    );
    if (!found) throw notFound('Application');
    return c.json({ ...found, ...page }, 200);
  });

  app.openapi(routes.get, async (c) => {
    const { db } = c.get('deps');
    const view = await getTestCase(db, c.get('caller').projectId, c.req.valid('param').testCaseId.toLowerCase());
    if (!view) throw notFound('Test case');
    return c.json(view, 200);
  });

  app.openapi(routes.update, async (c) => {
    const { db } = c.get('deps');
    const view = await updateTestCase({ db }, { ...c.req.valid('json'), projectId: c.get('caller').projectId, testCaseId: c.req.valid('param').testCaseId });
    return c.json(view, 200);
  });

  app.openapi(routes.remove, async (c) => {
    const { db } = c.get('deps');
    await deleteTestCase({ db }, { projectId: c.get('caller').projectId, testCaseId: c.req.valid('param').testCaseId });
    return c.json({ deleted: true as const }, 200);
  });
}
