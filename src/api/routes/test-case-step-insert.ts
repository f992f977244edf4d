import { z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { pathParams, uuid } from '../../schemas/common.js';
import { StepInsertionSchema, StopAnswer } from '../../schemas/step-edits.js';
import { Params } from '../../schemas/test-cases.js';
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
const InsertionParams = Params.extend(pathParams({ insertionId: uuid() }).shape);

// A request shape of this route only: its bound is the service's.
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

/** Stopping work under way: accepted (202), or 409 when there is none to stop. */
const stop = {
  tags,
  method: 'post',
  status: 202,
  answers: StopAnswer,
  answer: 'Cancellation requested (FAILED: its workflow was gone, marked at once)',
} as const;

const routes = {
  insert: operation({
    method: 'post',
    path: '/v1/test-cases/{testCaseId}/steps/insert',
    tags,
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
    params: Params,
    body: InsertStep,
    status: 202,
    answers: StepInsertionSchema,
    answer: 'Accepted: recording',
    conflict:
      'Cannot start: a mobile test, no environment URL, burning in, no steps, a dependency without steps, or an insertion running',
    overBudget: 'The LLM budget is spent',
  }),
  get: operation({
    method: 'get',
    path: '/v1/test-cases/{testCaseId}/steps/insertions/{insertionId}',
    tags,
    summary: 'Where an insertion is: RUNNING, COMPLETED (with the new version) or FAILED (with why)',
    params: InsertionParams,
    answers: StepInsertionSchema,
    answer: 'The insertion',
  }),
  cancel: operation({
    ...stop,
    path: '/v1/test-cases/{testCaseId}/steps/insertions/{insertionId}/cancel',
    summary: 'Stop an insertion while it records',
    description:
      'The browser closes and the insertion ends FAILED ("the insertion was cancelled: nothing was saved"); the steps are untouched. 409 when it already ended.',
    params: InsertionParams,
    conflict: 'Already ended',
  }),
  cancelBurnIn: operation({
    ...stop,
    path: '/v1/test-cases/{testCaseId}/burn-in/cancel',
    summary: 'Stop a running burn-in',
    description:
      'The burn-in stops and the test case ends FAILED with `failureReason` "the burn-in was cancelled"; steps recorded before the stop are not ' +
      'saved, so it cannot be enabled. Burn-ins waiting for it fail too. Poll `GET /v1/test-cases/{testCaseId}` until `generationStatus` leaves ' +
      'GENERATING. 409 when it is not burning in.',
    params: Params,
    conflict: 'Not burning in',
  }),
};

export function registerTestCaseStepInsert(app: OpenApiApp): void {
  serveResource(app, routes, {
    insert: ({ services, projectId, caller, param, body: { at, description } }) =>
      requestStepInsertion(services, {
        projectId,
        testCaseId: param.testCaseId.toLowerCase(),
        at,
        description,
        actor: tokenActor(caller.tokenId),
      }),
    get: ({ services, projectId, param }) =>
      getStepInsertionView(services, projectId, param.testCaseId.toLowerCase(), param.insertionId.toLowerCase()),
    cancel: async ({ services, projectId, param }) => {
      const { status } = await cancelStepInsertion(services, {
        projectId,
        testCaseId: param.testCaseId.toLowerCase(),
        insertionId: param.insertionId.toLowerCase(),
      });
      return { success: true as const, status };
    },
    cancelBurnIn: async ({ services, projectId, param }) => {
      const { status } = await stopBurnIn(services, projectId, param.testCaseId.toLowerCase());
      return { success: true as const, status };
    },
  });
}
