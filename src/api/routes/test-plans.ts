import type { OpenApiApp } from '../openapi.js';
import { deleted, resourceRoutes, withoutId } from '../resource-routes.js';
import { serveResource } from '../operation-routes.js';
import { CreateTestPlan, TestPlanParams, TestPlanSchema, UpdateTestPlan } from '../../schemas/test-plans.js';
import {
  createTestPlan,
  deleteTestPlan,
  listTestPlans,
  requireTestPlan,
  updateTestPlan,
} from '../../services/test-plans.js';

const writeNotes =
  'All writes of a request happen in one transaction: a rejected request changes nothing. ' +
  'Email notifications are stored one row per recipient. Unknown or other-project references are 404s: ' +
  '`Test case not found: <id>`, `Application not found`, `Environment not found` (also when the environment is not one of that application), `Device preset not found`.';

const routes = resourceRoutes({
  path: '/v1/test-plans/{testPlanShortId}',
  tags: ['Management'],
  noun: ['a test plan', 'test plans'],
  schema: TestPlanSchema,
  params: TestPlanParams,
  listKey: 'testPlans',
  create: {
    body: CreateTestPlan,
    summary: 'Create a test plan with its test cases, per-application parameters and notifications',
    description: writeNotes,
  },
  update: {
    body: UpdateTestPlan,
    description: `\`testCaseIds\` and \`applications\` replace their whole list; in \`notifications\` each channel given is replaced (null removes it). ${writeNotes}`,
  },
  remove: { summary: 'Delete a test plan (the project has no default plan afterwards if it was the default)' },
});

export function registerTestPlans(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId }) => ({ testPlans: await listTestPlans(services, projectId) }),
    create: async ({ services, projectId, body }) =>
      withoutId(await createTestPlan({ db: services.db }, { ...body, projectId })),
    get: async ({ services, projectId, param }) =>
      withoutId(await requireTestPlan(services, projectId, param.testPlanShortId)),
    update: async ({ services, projectId, param, body }) =>
      withoutId(
        await updateTestPlan({ db: services.db }, { ...body, projectId, testPlanShortId: param.testPlanShortId }),
      ),
    remove: async ({ services, projectId, param }) =>
      deleted(await deleteTestPlan(services, { projectId, testPlanShortId: param.testPlanShortId })),
  });
}
