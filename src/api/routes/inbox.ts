import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, json, type OpenApiApp } from '../openapi.js';
import { DEFAULT_INBOX_DOMAIN } from '../../config.js';
import {
  InboxAddressBody,
  InboxAddressSchema,
  InboxListQuery,
  InboxMessageParams,
  InboxMessageQuery,
  InboxMessageSchema,
  InboxMessageWithBodiesSchema,
} from '../../schemas/inbox.js';
import { createInboxAddress, getMessage, listMessages } from '../../services/inbox.js';

// Proctor's inbox, read through the API: what the steps of a run waited for, and what an exported spec polls.
const tags = ['Inbox'];

const routes = {
  list: createRoute({
    method: 'get',
    path: '/v1/inbox/messages',
    tags,
    security: bearerSecurity,
    summary: "List the mail Proctor's inbox received for the project, newest first (kept 7 days)",
    request: { query: InboxListQuery },
    responses: {
      200: json(z.object({ messages: z.array(InboxMessageSchema) }), 'Messages, newest first'),
      ...errorResponses,
    },
  }),
  address: createRoute({
    method: 'post',
    path: '/v1/inbox/addresses',
    tags,
    security: bearerSecurity,
    summary:
      'An inbox address for the project: a fresh one ({{INBOX}}), or the fixed one of a name ({{INBOX:name}}); exported specs ask here',
    request: { body: { content: { 'application/json': { schema: InboxAddressBody } }, required: false } },
    responses: {
      201: json(InboxAddressSchema, 'The address; Proctor takes mail for it from now on'),
      ...errorResponses,
    },
  }),
  get: createRoute({
    method: 'get',
    path: '/v1/inbox/messages/{messageId}',
    tags,
    security: bearerSecurity,
    summary: 'One received mail with its text and HTML bodies, and the code and link a step would take from it',
    request: { params: InboxMessageParams, query: InboxMessageQuery },
    responses: { 200: json(InboxMessageWithBodiesSchema, 'The message'), ...errorResponses },
  }),
};

export function registerInbox(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    return c.json(
      { messages: await listMessages(c.get('services'), c.get('caller').projectId, c.req.valid('query')) },
      200,
    );
  });
  app.openapi(routes.address, async (c) => {
    const { config } = c.get('deps');
    const { name } = c.req.valid('json') ?? {};
    return c.json(
      await createInboxAddress(
        c.get('services'),
        c.get('caller').projectId,
        config.PROCTOR_INBOX_DOMAIN ?? DEFAULT_INBOX_DOMAIN,
        name,
      ),
      201,
    );
  });
  app.openapi(routes.get, async (c) => {
    const { db, blobs } = c.get('services');
    const { linkPattern, codeShape } = c.req.valid('query');
    const message = await getMessage({ db, blobs }, c.get('caller').projectId, c.req.valid('param').messageId, {
      linkPattern,
      codeShape,
    });
    return c.json(message, 200);
  });
}
