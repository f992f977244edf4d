import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { ApiError } from '../errors.js';
import { maxIntColumn, uuid } from '../../schemas/common.js';
import { HealProposalSchema } from '../../schemas/heal-proposals.js';
import { tokenActor } from '../../services/audit-log.js';
import {
  acceptHealProposal,
  HealProposalError,
  healProposalView as view,
  listHealProposals,
  rejectHealProposal,
} from '../../services/heal-proposals.js';
import { StepSchema } from '../../schemas/steps.js';
import { saveEditedSteps } from '../../services/step-edits.js';

// A test case's steps as people correct them: edit them into a new version (the dashboard's step editor does the
// same through the same service), and the heal proposals: list them, accept or reject one.

const TestCaseParam = uuid().openapi({ param: { name: 'testCaseId', in: 'path' } });
const VersionParams = z.object({
  testCaseId: TestCaseParam,
  version: z.coerce
    .number()
    .int()
    .min(1)
    .max(maxIntColumn)
    .openapi({ param: { name: 'version', in: 'path' }, example: 3 }),
});

const tags = ['Test cases'];
const conflict = json(ErrorSchema, 'Already decided, or the steps changed since the proposal was made');

const EditSteps = z
  .object({
    basedOnVersion: z.number().int().min(1).max(maxIntColumn).openapi({
      description:
        'The steps version these edits start from (GET /v1/test-cases/{id} `steps.version`): saved only if it is still the current one',
      example: 3,
    }),
    steps: z.array(StepSchema).min(1).max(500).openapi({
      description: 'The whole list, edited: changed values, locators or expectations, steps deleted or reordered',
    }),
  })
  .openapi('EditSteps');

const routes = {
  edit: createRoute({
    method: 'put',
    path: '/v1/test-cases/{testCaseId}/steps',
    tags,
    security: bearerSecurity,
    summary: 'Save edited steps as the next steps version',
    description:
      'Every locator is parsed as replay parses it, and every step that acts on or checks an element needs one; an action or assertion needs its value. ' +
      'Refused edits answer 400 naming the step and field, and change nothing. Pending heal proposals of older versions are superseded.',
    request: {
      params: z.object({ testCaseId: TestCaseParam }),
      body: { content: { 'application/json': { schema: EditSteps } }, required: true },
    },
    responses: {
      200: json(z.object({ version: z.number().int() }), 'Saved: the new steps version'),
      409: json(ErrorSchema, 'The steps changed since `basedOnVersion`, or none are recorded yet'),
      ...errorResponses,
    },
  }),
  list: createRoute({
    method: 'get',
    path: '/v1/test-cases/{testCaseId}/steps/proposals',
    tags,
    security: bearerSecurity,
    summary: 'Heal proposals of a test case, newest first',
    description:
      'Under the `review` heal policy (see `/v1/project/settings`) a passing run that needed self-healing proposes its healed steps here.',
    request: { params: z.object({ testCaseId: TestCaseParam }) },
    responses: { 200: json(z.object({ proposals: z.array(HealProposalSchema) }), 'Proposals'), ...errorResponses },
  }),
  accept: createRoute({
    method: 'post',
    path: '/v1/test-cases/{testCaseId}/steps/{version}/accept',
    tags,
    security: bearerSecurity,
    summary: 'Accept a heal proposal: its steps become the given steps version',
    request: { params: VersionParams },
    responses: { 200: json(HealProposalSchema, 'Accepted'), 409: conflict, ...errorResponses },
  }),
  reject: createRoute({
    method: 'post',
    path: '/v1/test-cases/{testCaseId}/steps/{version}/reject',
    tags,
    security: bearerSecurity,
    summary: 'Reject a heal proposal: the steps stay as they are',
    request: { params: VersionParams },
    responses: { 200: json(HealProposalSchema, 'Rejected'), 409: conflict, ...errorResponses },
  }),
};

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof HealProposalError) throw new ApiError(err.kind === 'not_found' ? 404 : 409, err.message);
    throw err;
  }
}

export function registerTestCaseSteps(app: OpenApiApp): void {
  app.openapi(routes.edit, async (c) => {
    const { testCaseId } = c.req.valid('param');
    const { basedOnVersion, steps } = c.req.valid('json');
    const caller = c.get('caller');
    return c.json(
      await saveEditedSteps(c.get('services'), {
        projectId: caller.projectId,
        testCaseId: testCaseId.toLowerCase(),
        basedOnVersion,
        steps,
        actor: tokenActor(caller.tokenId),
      }),
      200,
    );
  });
  app.openapi(routes.list, async (c) => {
    const { testCaseId } = c.req.valid('param');
    const proposals = await mapped(
      listHealProposals(c.get('services'), c.get('caller').projectId, testCaseId.toLowerCase()),
    );
    return c.json({ proposals: proposals.map(view) }, 200);
  });
  app.openapi(routes.accept, async (c) => {
    const { testCaseId, version } = c.req.valid('param');
    return c.json(
      view(
        await mapped(
          acceptHealProposal(
            c.get('services'),
            c.get('caller').projectId,
            testCaseId.toLowerCase(),
            version,
            tokenActor(c.get('caller').tokenId),
          ),
        ),
      ),
      200,
    );
  });
  app.openapi(routes.reject, async (c) => {
    const { testCaseId, version } = c.req.valid('param');
    return c.json(
      view(
        await mapped(
          rejectHealProposal(
            c.get('services'),
            c.get('caller').projectId,
            testCaseId.toLowerCase(),
            version,
            tokenActor(c.get('caller').tokenId),
          ),
        ),
      ),
      200,
    );
  });
}
