import { z } from '@hono/zod-openapi';
import { pageOffset, pathParams, shortId } from './common.js';
import { UsageSchema } from './usage.js';

// Request and response shapes of the chat routes (src/api/routes/chat.ts).

const EnvironmentOverride = z
  .union([
    z
      .object({
        url: z
          .string()
          .url()
          .refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL'),
        name: z.string().optional(),
      })
      .strict(),
    z.object({ shortId: shortId('environment') }).strict(),
    z.object({ applicationBuildShortId: shortId('build') }).strict(),
  ])
  .openapi({ description: 'Exactly one form: `{ url, name? }`, `{ shortId }` or `{ applicationBuildShortId }`' });

export const ApplicationOverride = z
  .object({
    applicationShortId: shortId('application'),
    devicePresetShortId: shortId('devicePreset').optional(),
    environment: EnvironmentOverride,
  })
  .openapi('ApplicationOverrideWithRequiredEnvironment');

export const SendMessage = z
  .object({
    message: z
      .string()
      .min(1)
      .max(20_000)
      .openapi({ example: 'Create a test that checks out the cart with express shipping, then run it' }),
    applicationOverrides: z
      .array(ApplicationOverride)
      .max(50)
      .optional()
      .openapi({
        description:
          'Environments (and device presets) for everything this conversation runs. Fixed by the first message: ignored in follow-ups, ' +
          'where the conversation keeps the environments it started with.',
      }),
  })
  .openapi('ChatMessageRequest');

export const ChatMessageItem = z
  .object({
    id: z.string(),
    role: z.enum(['user', 'assistant']),
    createdAt: z.string().datetime(),
    text: z.string().openapi({
      description: 'Plain text only: tool calls and reasoning are not exposed. For a FAILED reply, the reason.',
    }),
    status: z.enum(['INITIATED', 'PARTIAL', 'COMPLETED', 'CANCELLED', 'FAILED']),
    isStreaming: z
      .boolean()
      .openapi({ description: 'true while the assistant still streams tokens into this message' }),
    usage: UsageSchema.optional().openapi({
      description: "Extension to the spec, assistant messages only: the LLM calls and tokens of the turn's reply",
    }),
  })
  .openapi('ChatMessageItem');

const conversationFields = {
  shortId: shortId('chat'),
  url: z.string().url().openapi({ description: 'Dashboard URL of the conversation' }),
  title: z.string().nullable().openapi({ description: 'Set after the first turn' }),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
  source: z.enum(['api', 'ui', 'github', 'gitlab', 'system']),
};

export const ChatConversationResponse = z
  .object({
    ...conversationFields,
    messages: z.array(ChatMessageItem).openapi({ description: 'Most recent messages, newest first' }),
  })
  .openapi('ChatConversationResponse');

export const ChatConversationList = z
  .object({
    chats: z.array(z.object(conversationFields).openapi('ChatConversationSummary')),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi('ChatConversationList');

export const ChatParams = pathParams({ chatConversationShortId: shortId('chat') });

export const ChatQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(20)
    .openapi({ description: 'Messages to return, newest first (default 20)' }),
});

export const ChatListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: pageOffset(),
});

export const IdempotencyHeader = z.object({
  'idempotency-key': z.string().min(1).max(200).optional().openapi({
    description:
      'Idempotency-Key (header names are case-insensitive): a retried request with the same key is the same message: answered again, processed once',
  }),
});

export const CancelResponse = z
  .object({ success: z.literal(true), messageId: z.string(), status: z.literal('CANCELLING') })
  .openapi('ChatCancelResponse');
