import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { DEFAULT_INBOX_DOMAIN } from '../../config.js';
import {
  InboxAddressBody,
  InboxAddressSchema,
  InboxListQuery,
  InboxMessageList,
  InboxMessageParams,
  InboxMessageQuery,
  InboxMessageWithBodiesSchema,
} from '../../schemas/inbox.js';
import { createInboxAddress, getMessage, listMessages } from '../../services/inbox.js';

// Proctor's inbox, read through the API: what the steps of a run waited for, and what an exported spec polls.
const tags = ['Inbox'];

const routes = {
  list: operation({
    method: 'get',
    path: '/v1/inbox/messages',
    tags,
    summary: "List the mail Proctor's inbox received for the project, newest first (kept 7 days)",
    query: InboxListQuery,
    answers: InboxMessageList,
    answer: 'Messages, newest first',
  }),
  address: operation({
    method: 'post',
    path: '/v1/inbox/addresses',
    tags,
    summary:
      'An inbox address for the project: a fresh one ({{INBOX}}), or the fixed one of a name ({{INBOX:name}}); exported specs ask here',
    body: InboxAddressBody,
    optionalBody: true,
    status: 201,
    answers: InboxAddressSchema,
    answer: 'The address; Proctor takes mail for it from now on',
  }),
  get: operation({
    method: 'get',
    path: '/v1/inbox/messages/{messageId}',
    tags,
    summary: 'One received mail with its text and HTML bodies, and the code and link a step would take from it',
    params: InboxMessageParams,
    query: InboxMessageQuery,
    answers: InboxMessageWithBodiesSchema,
    answer: 'The message',
  }),
};

export function registerInbox(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, query }) => ({ messages: await listMessages(services, projectId, query) }),
    address: ({ services, deps, projectId, body }) =>
      createInboxAddress(services, projectId, deps.config.PROCTOR_INBOX_DOMAIN ?? DEFAULT_INBOX_DOMAIN, body?.name),
    get: ({ services: { db, blobs }, projectId, param, query: { linkPattern, codeShape } }) =>
      getMessage({ db, blobs }, projectId, param.messageId, { linkPattern, codeShape }),
  });
}
