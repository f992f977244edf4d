import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
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
const conversation = { tags, path: '/v1/chat/{chatConversationShortId}', params: ChatParams };

const polling =
  'Processing is asynchronous: poll `GET /v1/chat/{chatConversationShortId}` every 2-5 s until `messages[0]` is an assistant message ' +
  'with status COMPLETED (or FAILED / CANCELLED). While the reply streams it is PARTIAL with `isStreaming` true and growing text.';

/** A message is answered later: saved and accepted (202), or saved with its reply FAILED when it cannot be handed on. */
const message = {
  headers: IdempotencyHeader,
  body: SendMessage,
  status: 202,
  answers: ChatConversationResponse,
  unavailable: 'The message was saved but could not be handed to the workflow service; its reply is marked FAILED',
} as const;

const routes = {
  create: operation({
    ...message,
    method: 'post',
    path: '/v1/chat',
    tags,
    summary: 'Create a conversation and send its first message',
    description: `${polling} The answer has \`messages\` empty and \`source\` "api".`,
    answer: 'Accepted; the reply is being processed',
  }),
  list: operation({
    method: 'get',
    path: '/v1/chat',
    tags,
    summary: "List the project's conversations, most recently active first",
    query: ChatListQuery,
    answers: ChatConversationList,
    answer: 'One page of conversations',
  }),
  send: operation({
    ...message,
    ...conversation,
    method: 'post',
    summary: 'Send a follow-up message',
    description: `Messages are answered strictly in the order they were sent. ${polling}`,
    answer: 'Accepted; includes the existing messages, newest first',
  }),
  get: operation({
    ...conversation,
    method: 'get',
    summary: 'Get a conversation with its most recent messages, newest first',
    query: ChatQuery,
    answers: ChatConversationResponse,
    answer: 'The conversation',
  }),
  cancel: operation({
    ...conversation,
    method: 'post',
    path: '/v1/chat/{chatConversationShortId}/cancel',
    summary: 'Stop the reply being written (it ends CANCELLED, keeping the text streamed so far)',
    status: 202,
    answers: CancelResponse,
    answer: 'Cancellation requested',
    conflict: 'The latest reply already ended',
  }),
};

export function registerChat(app: OpenApiApp): void {
  serveResource(app, routes, {
    create: ({ services, projectId, body, headers }) =>
      createConversation(services, {
        projectId,
        message: body.message,
        applicationOverrides: body.applicationOverrides as ApplicationOverride[] | undefined,
        idempotencyKey: headers['idempotency-key'],
      }),
    list: ({ services, projectId, query }) => listConversations(services, { projectId, ...query }),
    send: ({ services, projectId, param, body, headers }) =>
      sendMessage(services, {
        projectId,
        chatShortId: param.chatConversationShortId,
        message: body.message,
        idempotencyKey: headers['idempotency-key'],
      }),
    get: ({ services, projectId, param, query }) =>
      getConversation(services, { projectId, chatShortId: param.chatConversationShortId, limit: query.limit }),
    cancel: async ({ services, projectId, param }) => {
      const { messageId } = await cancelReply(services, { projectId, chatShortId: param.chatConversationShortId });
      return { success: true as const, messageId, status: 'CANCELLING' as const };
    },
  });
}
