import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { ChatConversationResponse, ChatParams, IdempotencyHeader } from '../../schemas/chat.js';
import { ChangeReviewRequest, ChangeReviewResponse } from '../../schemas/change-review.js';
import { changeReviewRequestOf, createChangeReview, getChangeReview } from '../../services/change-reviews.js';

const tags = ['Chat'];

/** Its body may be larger than others: PROCTOR_MAX_DIFF_BYTES (src/api/app.ts). */
export const changeReviewPath = '/v1/chat/change-review';

const routes = {
  create: createRoute({
    method: 'post',
    path: changeReviewPath,
    tags,
    security: bearerSecurity,
    summary: 'Start a change review (a pull/merge request or a raw diff) in a conversation of its own',
    description:
      'The review reads the change, chooses the affected enabled tests (and creates tests, disabled and labelled `change-review`, ' +
      'only where coverage is missing), runs them on the given environments and ends with a verdict: `Approved`, `Changes Requested` ' +
      'or `Comment`. Poll `GET /v1/chat/{chatConversationShortId}` until `messages[0]` is an assistant message with status COMPLETED ' +
      '(or FAILED / CANCELLED): it stays PARTIAL, with progress text, until the verdict is written. The verdict as data: ' +
      '`GET /v1/chat/{chatConversationShortId}/review`. A docs-, CI- or config-only change runs nothing and says so. ' +
      'The body may be up to `PROCTOR_MAX_DIFF_BYTES` (16 MiB by default, 413 above it), not the 1 MiB of other routes: a ' +
      'raw diff is sent whole, and the model reads what fits its budget, UI code first and lock files last.',
    request: { headers: IdempotencyHeader, body: jsonBody(ChangeReviewRequest) },
    responses: {
      202: json(ChatConversationResponse, 'Accepted; the review is running'),
      503: json(
        ErrorSchema,
        'The review was saved but could not be handed to the workflow service; it is marked FAILED',
      ),
      ...errorResponses,
    },
  }),
  get: createRoute({
    method: 'get',
    path: '/v1/chat/{chatConversationShortId}/review',
    tags,
    security: bearerSecurity,
    summary: "A change review's verdict, summary and tests (or where it is while it runs)",
    request: { params: ChatParams },
    responses: { 200: json(ChangeReviewResponse, 'The review'), ...errorResponses },
  }),
};

/** Registered before the chat routes: `/v1/chat/change-review` is not a conversation id. */
export function registerChangeReview(app: OpenApiApp): void {
  app.openapi(routes.create, async (c) => {
    const services = c.get('services');
    const request = changeReviewRequestOf(c.req.valid('json'));
    const view = await createChangeReview(services, c.get('caller').projectId, request, {
      idempotencyKey: c.req.valid('header')['idempotency-key'],
    });
    return c.json(view, 202);
  });

  app.openapi(routes.get, async (c) => {
    const services = c.get('services');
    const view = await getChangeReview(services, {
      projectId: c.get('caller').projectId,
      chatShortId: c.req.valid('param').chatConversationShortId,
    });
    return c.json(view, 200);
  });
}
