import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import {
  CancelResponse,
  ChatConversationList,
  ChatConversationResponse,
  ChatListQuery,
  ChatParams,
  ChatQuery,
  IdempotencyHeader,
  SendMessage,
} from '../../schemas/chat.js';
import type { ApplicationOverride } from '../../domain/precedence.js';
import {
  cancelReply,
  createConversation,
  getConversation,
  listConversations,
  sendMessage,
} from '../../services/chat.js';

const tags = ['Chat'];

const polling =
  'Processing is asynchronous: poll `GET /v1/chat/{chatConversationShortId}` every 2-5 s until `messages[0]` is an assistant message ' +
  'with status COMPLETED (or FAILED / CANCELLED). While the reply streams it is PARTIAL with `isStreaming` true and growing text.';

const unavailable = json(
  ErrorSchema,
  'The message was saved but could not be handed to the workflow service; its reply is marked FAILED',
);

const routes = {
  create: createRoute({
    method: 'post',
    path: '/v1/chat',
    tags,
    security: bearerSecurity,
    summary: 'Create a conversation and send its first message',
    description: `${polling} The answer has \`messages\` empty and \`source\` "api".`,
    request: { headers: IdempotencyHeader, body: jsonBody(SendMessage) },
    responses: {
      202: json(ChatConversationResponse, 'Accepted; the reply is being processed'),
      503: unavailable,
      ...errorResponses,
    },
  }),
  list: createRoute({
    method: 'get',
    path: '/v1/chat',
    tags,
    security: bearerSecurity,
    summary: "List the project's conversations, most recently active first",
    request: { query: ChatListQuery },
    responses: { 200: json(ChatConversationList, 'One page of conversations'), ...errorResponses },
  }),
  send: createRoute({
    method: 'post',
    path: '/v1/chat/{chatConversationShortId}',
    tags,
    security: bearerSecurity,
    summary: 'Send a follow-up message',
    description: `Messages are answered strictly in the order they were sent. ${polling}`,
    request: { headers: IdempotencyHeader, params: ChatParams, body: jsonBody(SendMessage) },
    responses: {
      202: json(ChatConversationResponse, 'Accepted; includes the existing messages, newest first'),
      503: unavailable,
      ...errorResponses,
    },
  }),
  get: createRoute({
    method: 'get',
    path: '/v1/chat/{chatConversationShortId}',
    tags,
    security: bearerSecurity,
    summary: 'Get a conversation with its most recent messages, newest first',
    request: { params: ChatParams, query: ChatQuery },
    responses: { 200: json(ChatConversationResponse, 'The conversation'), ...errorResponses },
  }),
  cancel: createRoute({
    method: 'post',
    path: '/v1/chat/{chatConversationShortId}/cancel',
    tags,
    security: bearerSecurity,
    summary: 'Stop the reply being written (it ends CANCELLED, keeping the text streamed so far)',
    request: { params: ChatParams },
    responses: {
      202: json(CancelResponse, 'Cancellation requested'),
      409: json(ErrorSchema, 'The latest reply already ended'),
      ...errorResponses,
    },
  }),
};

export function registerChat(app: OpenApiApp): void {
  app.openapi(routes.create, async (c) => {
    const body = c.req.valid('json');
    const view = await createConversation(c.get('services'), {
      projectId: c.get('caller').projectId,
      message: body.message,
      applicationOverrides: body.applicationOverrides as ApplicationOverride[] | undefined,
      idempotencyKey: c.req.valid('header')['idempotency-key'],
    });
    return c.json(view, 202);
  });

  app.openapi(routes.list, async (c) => {
    const query = c.req.valid('query');
    return c.json(await listConversations(c.get('services'), { projectId: c.get('caller').projectId, ...query }), 200);
  });

  app.openapi(routes.send, async (c) => {
    const view = await sendMessage(c.get('services'), {
      projectId: c.get('caller').projectId,
      chatShortId: c.req.valid('param').chatConversationShortId,
      message: c.req.valid('json').message,
      idempotencyKey: c.req.valid('header')['idempotency-key'],
    });
    return c.json(view, 202);
  });

  app.openapi(routes.get, async (c) => {
    const view = await getConversation(c.get('services'), {
      projectId: c.get('caller').projectId,
      chatShortId: c.req.valid('param').chatConversationShortId,
      limit: c.req.valid('query').limit,
    });
    return c.json(view, 200);
  });

  app.openapi(routes.cancel, async (c) => {
    const { messageId } = await cancelReply(c.get('services'), {
      projectId: c.get('caller').projectId,
      chatShortId: c.req.valid('param').chatConversationShortId,
    });
    return c.json({ success: true as const, messageId, status: 'CANCELLING' as const }, 202);
  });
}
