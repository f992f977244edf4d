import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { uuid } from '../../schemas/common.js';
import { tokenActor } from '../../services/audit-log.js';
import { stopBurnIn } from '../../services/burn-in-stop.js';
import {
  cancelStepInsertion,
  getStepInsertionView,
  maxInsertDescription,
  requestStepInsertion,
} from '../../services/step-insert.js';

// "Insert a step here" over REST (the dashboard's step editor offers the same through the same service), and
// stopping a running burn-in (the live view's stop button).

const tags = ['Test cases'];
const TestCaseParam = uuid().openapi({ param: { name: 'testCaseId', in: 'path' } });
const InsertionParams = z.object({
  testCaseId: TestCaseParam,
  insertionId: uuid().openapi({ param: { name: 'insertionId', in: 'path' } }),
});

const InsertStep = z
  .object({
    at: z.number().int().min(0).max(500).openapi({
      description:
        '0-based position: the recorded steps go before the step now at this index (0: first; the number of steps: after the last)',
      example: 2,
    }),
    description: z.string().max(maxInsertDescription).openapi({
      description: 'The step in words, as you would tell a tester',
      example: 'Check that the cart lists the tea pot',
    }),
  })
  .openapi('InsertStep');

const StepInsertionSchema = z
  .object({
    id: z.string().uuid(),
    testCaseId: z.string().uuid(),
    status: z.enum(['RUNNING', 'COMPLETED', 'FAILED']),
    at: z.number().int(),
    description: z.string(),
    basedOnVersion: z.number().int().openapi({ description: 'The steps version the step is inserted into' }),
    version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'COMPLETED: the new steps version holding the inserted steps' }),
    insertedSteps: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'COMPLETED: how many steps the agent recorded for the description' }),
    failureReason: z.string().nullable().openapi({
      description:
        'FAILED: why nothing was saved (a step before the position did not replay, the agent could not record, the steps changed meanwhile)',
    }),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('StepInsertion');

const routes = {
  insert: createRoute({
    method: 'post',
    path: '/v1/test-cases/{testCaseId}/steps/insert',
    tags,
    security: bearerSecurity,
    summary: 'Insert a step described in words: the agent records it where the steps before it leave the page',
    description:
      'A workflow (`insert-step:<id>` in the Temporal UI) opens a browser, replays the current steps before `at` (starting, as a run does, ' +
      'where a resume-from dependency ended), then lets the agent record `description` in that page. The recorded steps are spliced in at `at` ' +
      'and saved as the next steps version, as `PUT /v1/test-cases/{id}/steps` saves (same checks, older heal proposals superseded, audited as ' +
      '`test_case.steps_edited`). Answers 202 with the insertion: poll `GET /v1/test-cases/{testCaseId}/steps/insertions/{insertionId}` until ' +
      "`status` is COMPLETED (`version`) or FAILED (`failureReason`; nothing saved). It is LLM work: counted as the test case's burn-in usage and " +
      'refused (429) once the daily budget is spent. Everything known to make it fail is refused before anything starts (no insertion, no ' +
      'workflow): `at` outside 0..number of steps or an empty description (400); a test of an ios or android application (the agent records ' +
      'in a browser), an application without an environment URL, a test case still burning in or without steps, a resume-from dependency ' +
      'without steps (or a cycle of them), or an insertion running (409, the reason in `message`).',
    request: { params: z.object({ testCaseId: TestCaseParam }), body: jsonBody(InsertStep) },
    responses: {
      202: json(StepInsertionSchema, 'Accepted: recording'),
      409: json(
        ErrorSchema,
        'Cannot start: a mobile test, no environment URL, burning in, no steps, a dependency without steps, or an insertion running',
      ),
      429: json(ErrorSchema, 'The LLM budget is spent'),
      ...errorResponses,
    },
  }),
  get: createRoute({
    method: 'get',
    path: '/v1/test-cases/{testCaseId}/steps/insertions/{insertionId}',
    tags,
    security: bearerSecurity,
    summary: 'Where an insertion is: RUNNING, COMPLETED (with the new version) or FAILED (with why)',
    request: { params: InsertionParams },
    responses: { 200: json(StepInsertionSchema, 'The insertion'), ...errorResponses },
  }),
  cancel: createRoute({
    method: 'post',
    path: '/v1/test-cases/{testCaseId}/steps/insertions/{insertionId}/cancel',
    tags,
    security: bearerSecurity,
    summary: 'Stop an insertion while it records',
    description:
      'The browser closes and the insertion ends FAILED ("the insertion was cancelled: nothing was saved"); the steps are untouched. 409 when it already ended.',
    request: { params: InsertionParams },
    responses: {
      202: json(
        z.object({ success: z.literal(true), status: z.enum(['CANCELLING', 'FAILED']) }),
        'Cancellation requested (FAILED: its workflow was gone, marked at once)',
      ),
      409: json(ErrorSchema, 'Already ended'),
      ...errorResponses,
    },
  }),
  cancelBurnIn: createRoute({
    method: 'post',
    path: '/v1/test-cases/{testCaseId}/burn-in/cancel',
    tags,
    security: bearerSecurity,
    summary: 'Stop a running burn-in',
    description:
      'The burn-in stops and the test case ends FAILED with `failureReason` "the burn-in was cancelled"; steps recorded before the stop are not ' +
      'saved, so it cannot be enabled. Burn-ins waiting for it fail too. Poll `GET /v1/test-cases/{testCaseId}` until `generationStatus` leaves ' +
      'GENERATING. 409 when it is not burning in.',
    request: { params: z.object({ testCaseId: TestCaseParam }) },
    responses: {
      202: json(
        z.object({ success: z.literal(true), status: z.enum(['CANCELLING', 'FAILED']) }),
        'Cancellation requested (FAILED: its workflow was gone, marked at once)',
      ),
      409: json(ErrorSchema, 'Not burning in'),
      ...errorResponses,
    },
  }),
};

export function registerTestCaseStepInsert(app: OpenApiApp): void {
  app.openapi(routes.insert, async (c) => {
    const { testCaseId } = c.req.valid('param');
    const { at, description } = c.req.valid('json');
    const caller = c.get('caller');
    const insertion = await requestStepInsertion(c.get('services'), {
      projectId: caller.projectId,
      testCaseId: testCaseId.toLowerCase(),
      at,
      description,
      actor: tokenActor(caller.tokenId),
    });
    return c.json(insertion, 202);
  });
  app.openapi(routes.get, async (c) => {
    const { testCaseId, insertionId } = c.req.valid('param');
    return c.json(
      await getStepInsertionView(
        c.get('services'),
        c.get('caller').projectId,
        testCaseId.toLowerCase(),
        insertionId.toLowerCase(),
      ),
      200,
    );
  });
  app.openapi(routes.cancel, async (c) => {
    const { testCaseId, insertionId } = c.req.valid('param');
    const { status } = await cancelStepInsertion(c.get('services'), {
      projectId: c.get('caller').projectId,
      testCaseId: testCaseId.toLowerCase(),
      insertionId: insertionId.toLowerCase(),
    });
    return c.json({ success: true as const, status }, 202);
  });
  app.openapi(routes.cancelBurnIn, async (c) => {
    const { testCaseId } = c.req.valid('param');
    const { status } = await stopBurnIn(c.get('services'), c.get('caller').projectId, testCaseId.toLowerCase());
    return c.json({ success: true as const, status }, 202);
  });
}
