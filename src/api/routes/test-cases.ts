import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { deleted, resource } from '../resource-routes.js';
import {
  CreateTestCase,
  UpdateTestCase,
  CreatedTestCase,
  ListQuery,
  TestCaseList,
  Params,
  TestCaseWithProposalsSchema,
} from '../../schemas/test-cases.js';
import { tokenActor } from '../../services/audit-log.js';
import { createTestCase, deleteTestCase, updateTestCase } from '../../services/test-cases.js';
import { showTestCase, testCaseListText, testCaseWithProposalsView } from '../../services/test-case-reads.js';

const tags = ['Test cases'];
const base = '/v1/test-cases';
const testCases = resource({
  path: `${base}/{testCaseId}`,
  tags,
  noun: ['a test case', 'test cases'],
  schema: TestCaseWithProposalsSchema,
  params: Params,
});

const referenceNotes =
  'References must belong to the project, else 404: `Application not found`, `Scenario not found`, `Config not found: <cfg_…>`, ' +
  '`Test case not found: <id>`. Dependency rules (400): a test case cannot depend on itself, directly or through other test cases ' +
  '(the message names the cycle; both kinds of dependency count), and its resume-from dependency must be a test case of the same ' +
  'application, because browser state only carries over within one application. A rejected request writes nothing.';

const routes = {
  // Answers 200 with `{ success, testCase }` rather than the item: the shape is part of the contract.
  create: operation({
    method: 'post',
    path: base,
    tags,
    summary: 'Create a test case; its steps are then generated automatically',
    description:
      'The test case is created disabled with `generationStatus` GENERATING, and a burn-in starts that executes the goal against the ' +
      'application and records the steps. It must be enabled (after generation COMPLETED) before test plans run it. ' +
      `${referenceNotes} If the burn-in cannot be started (the workflow service is unavailable), the test case is kept with ` +
      '`generationStatus` FAILED and `failureReason` "could not start generation: …", and the answer is a 503.',
    body: CreateTestCase,
    answers: CreatedTestCase,
    answer: 'Created; generation has started',
    unavailable: 'Saved, but generation could not be started; the test case is marked FAILED',
  }),
  // A page of matching test cases, filtered by the query, rather than the standard list.
  list: operation({
    method: 'get',
    path: base,
    tags,
    summary: 'List test cases, newest first',
    query: ListQuery,
    answers: TestCaseList,
    answer: 'One page of matching test cases',
  }),
  get: testCases.get({
    summary: 'Get a test case with its dependencies, recorded steps and pending heal proposals',
  }),
  update: testCases.update(UpdateTestCase, {
    summary: 'Enable or disable a test case, rename it, change its goal, labels or dependencies',
    description:
      'Enabling a test case whose generation has not COMPLETED is a 409: it has no steps to run. Changing `goal` or `expectedResult` ' +
      `does not regenerate the steps. ${referenceNotes}`,
    answer: 'Updated, shown as GET shows it',
    conflict: 'Enabling before the steps are recorded',
  }),
  remove: testCases.remove({
    description:
      'Refused (409) while other test cases depend on it; the message lists them. Test plans that listed it no longer do. ' +
      'A burn-in still running for it is not cancelled: it finds the test case gone and stops.',
    conflict: 'Other test cases depend on it',
  }),
};

export function registerTestCases(app: OpenApiApp): void {
  serveResource(app, routes, {
    create: async ({ services, logger, projectId, body }) => {
      const created = await createTestCase({ ...services, logger }, { ...body, projectId });
      return { success: true as const, testCase: { ...created, url: `${services.appUrl}/test-cases/${created.id}` } };
    },
    list: ({ services, projectId, query }) => testCaseListText(services, { ...query, projectId }),
    get: async ({ services, projectId, param: { testCaseId } }) =>
      testCaseWithProposalsView(await showTestCase(services, { projectId, testCaseId })),
    update: async ({ services, projectId, caller, param: { testCaseId }, body }) => {
      await updateTestCase(services, { ...body, projectId, testCaseId, actor: tokenActor(caller.tokenId) });
      return testCaseWithProposalsView(await showTestCase(services, { projectId, testCaseId }));
    },
    remove: async ({ services, projectId, param: { testCaseId } }) =>
      deleted(await deleteTestCase(services, { projectId, testCaseId })),
  });
}
