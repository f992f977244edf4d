import { createRoute, z } from '@hono/zod-openapi';
import {
  bearerSecurity,
  sendJsonText,
  ErrorSchema,
  errorResponses,
  json,
  jsonBody,
  type OpenApiApp,
} from '../openapi.js';
import { Deleted } from '../../schemas/common.js';
import {
  CreateTestCase,
  UpdateTestCase,
  TestCaseDetailSchema,
  CreatedTestCase,
  ListQuery,
  TestCaseList,
  Params,
} from '../../schemas/test-cases.js';
import { HealProposalSchema } from '../../schemas/heal-proposals.js';
import { tokenActor } from '../../services/audit-log.js';
import { createTestCase, deleteTestCase, updateTestCase } from '../../services/test-cases.js';
import { showTestCase, testCaseListText, testCaseWithProposalsView } from '../../services/test-case-reads.js';
import { UsageSchema } from '../../schemas/usage.js';

const tags = ['Test cases'];

export const TestCaseWithProposalsSchema = TestCaseDetailSchema.extend({
  healProposals: z.array(HealProposalSchema).openapi({
    description:
      'Extension to the spec: heal proposals waiting for a decision, newest first (see `/v1/test-cases/{testCaseId}/steps/proposals` for decided ones ' +
      'and to accept or reject one). Empty unless the `review` heal policy kept one.',
  }),
  usage: UsageSchema.openapi({
    description: "Extension to the spec: what the test's burn-ins cost in LLM calls and tokens",
  }),
}).openapi('TestCaseWithHealProposals');

const base = '/v1/test-cases';

const referenceNotes =
  'References must belong to the project, else 404: `Application not found`, `Scenario not found`, `Config not found: <cfg_…>`, ' +
  '`Test case not found: <id>`. Dependency rules (400): a test case cannot depend on itself, directly or through other test cases ' +
  '(the message names the cycle; both kinds of dependency count), and its resume-from dependency must be a test case of the same ' +
  'application, because browser state only carries over within one application. A rejected request writes nothing.';

const routes = {
  create: createRoute({
    method: 'post',
    path: base,
    tags,
    security: bearerSecurity,
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
    method: 'get',
    path: base,
    tags,
    security: bearerSecurity,
    summary: 'List test cases, newest first',
    request: { query: ListQuery },
    responses: { 200: json(TestCaseList, 'One page of matching test cases'), ...errorResponses },
  }),
  get: createRoute({
    method: 'get',
    path: `${base}/{testCaseId}`,
    tags,
    security: bearerSecurity,
    summary: 'Get a test case with its dependencies, recorded steps and pending heal proposals',
    request: { params: Params },
    responses: { 200: json(TestCaseWithProposalsSchema, 'The test case'), ...errorResponses },
  }),
  update: createRoute({
    method: 'patch',
    path: `${base}/{testCaseId}`,
    tags,
    security: bearerSecurity,
    summary: 'Enable or disable a test case, rename it, change its goal, labels or dependencies',
    description:
      'Enabling a test case whose generation has not COMPLETED is a 409: it has no steps to run. Changing `goal` or `expectedResult` ' +
      `does not regenerate the steps. ${referenceNotes}`,
    request: { params: Params, body: jsonBody(UpdateTestCase) },
    responses: {
      200: json(TestCaseWithProposalsSchema, 'Updated, shown as GET shows it'),
      409: json(ErrorSchema, 'Enabling before the steps are recorded'),
      ...errorResponses,
    },
  }),
  remove: createRoute({
    method: 'delete',
    path: `${base}/{testCaseId}`,
    tags,
    security: bearerSecurity,
    summary: 'Delete a test case',
    description:
      'Refused (409) while other test cases depend on it; the message lists them. Test plans that listed it no longer do. ' +
      'A burn-in still running for it is not cancelled: it finds the test case gone and stops.',
    request: { params: Params },
    responses: {
      200: json(Deleted, 'Deleted'),
      409: json(ErrorSchema, 'Other test cases depend on it'),
      ...errorResponses,
    },
  }),
};

export function registerTestCases(app: OpenApiApp): void {
  app.openapi(routes.create, async (c) => {
    const services = c.get('services');
    const created = await createTestCase(
      { ...services, logger: c.get('logger') },
      { ...c.req.valid('json'), projectId: c.get('caller').projectId },
    );
    return c.json({ success: true, testCase: { ...created, url: `${services.appUrl}/test-cases/${created.id}` } }, 200);
  });

  app.openapi(routes.list, async (c) => {
    const { projectId } = c.get('caller');
    const query = c.req.valid('query');
    return sendJsonText(c, await testCaseListText(c.get('services'), { ...query, projectId }));
  });

  app.openapi(routes.get, async (c) => {
    const found = await showTestCase(c.get('services'), {
      projectId: c.get('caller').projectId,
      testCaseId: c.req.valid('param').testCaseId,
    });
    return c.json(testCaseWithProposalsView(found), 200);
  });

  app.openapi(routes.update, async (c) => {
    const { projectId } = c.get('caller');
    const { testCaseId } = c.req.valid('param');
    await updateTestCase(c.get('services'), {
      ...c.req.valid('json'),
      projectId,
      testCaseId,
      actor: tokenActor(c.get('caller').tokenId),
    });
    return c.json(testCaseWithProposalsView(await showTestCase(c.get('services'), { projectId, testCaseId })), 200);
  });

  app.openapi(routes.remove, async (c) => {
    await deleteTestCase(c.get('services'), {
      projectId: c.get('caller').projectId,
      testCaseId: c.req.valid('param').testCaseId,
    });
    return c.json({ deleted: true as const }, 200);
  });
}
