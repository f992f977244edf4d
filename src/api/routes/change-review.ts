import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { ChatConversationResponse, ChatParams, IdempotencyHeader } from '../../schemas/chat.js';
import { ChangeReviewRequest, ChangeReviewResponse } from '../../schemas/change-review.js';
import { changeReviewRequestOf, createChangeReview, getChangeReview } from '../../services/change-reviews.js';

const tags = ['Chat'];

/** Its body may be larger than others: PROCTOR_MAX_DIFF_BYTES (src/api/app.ts). */
export const changeReviewPath = '/v1/chat/change-review';

const routes = {
  create: operation({
    method: 'post',
    path: changeReviewPath,
    tags,
    summary: 'Start a change review (a pull/merge request or a raw diff) in a conversation of its own',
    description:
      'The review reads the change, chooses the affected enabled tests (and creates tests, disabled and labelled `change-review`, ' +
      'only where coverage is missing), runs them on the given environments and ends with a verdict: `Approved`, `Changes Requested` ' +
      'or `Comment`. Poll `GET /v1/chat/{chatConversationShortId}` until `messages[0]` is an assistant message with status COMPLETED ' +
      '(or FAILED / CANCELLED): it stays PARTIAL, with progress text, until the verdict is written. The verdict as data: ' +
      '`GET /v1/chat/{chatConversationShortId}/review`. A docs-, CI- or config-only change runs nothing and says so. ' +
      'The body may be up to `PROCTOR_MAX_DIFF_BYTES` (16 MiB by default, 413 above it), not the 1 MiB of other routes: a ' +
      'raw diff is sent whole, and the model reads what fits its budget, UI code first and lock files last.',
    headers: IdempotencyHeader,
    body: ChangeReviewRequest,
    status: 202,
    answers: ChatConversationResponse,
    answer: 'Accepted; the review is running',
    unavailable: 'The review was saved but could not be handed to the workflow service; it is marked FAILED',
  }),
  get: operation({
    method: 'get',
    path: '/v1/chat/{chatConversationShortId}/review',
    tags,
    summary: "A change review's verdict, summary and tests (or where it is while it runs)",
    params: ChatParams,
    answers: ChangeReviewResponse,
    answer: 'The review',
  }),
};

/** Registered before the chat routes: `/v1/chat/change-review` is not a conversation id. */
export function registerChangeReview(app: OpenApiApp): void {
  serveResource(app, routes, {
    create: ({ services, projectId, body, headers }) =>
      createChangeReview(services, projectId, changeReviewRequestOf(body), {
        idempotencyKey: headers['idempotency-key'],
      }),
    get: ({ services, projectId, param }) =>
      getChangeReview(services, { projectId, chatShortId: param.chatConversationShortId }),
  });
}
