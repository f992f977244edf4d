import { z } from '@hono/zod-openapi';
import { codeShapePattern } from '../domain/inbox.js';
import { pathParams } from './common.js';

export const InboxMessageSchema = z
  .object({
    id: z.string().uuid(),
    to: z.string().openapi({ example: 'run-3f9a0c1d2b4e5f60@inbox.proctor.localhost' }),
    from: z.string().openapi({ example: 'Acme <no-reply@acme.example>' }),
    subject: z.string().openapi({ example: 'Verify your Acme account' }),
    sizeBytes: z.number().int(),
    receivedAt: z.string().datetime(),
  })
  .openapi('InboxMessage');

export const InboxMessageList = z.object({ messages: z.array(InboxMessageSchema) });

export const InboxMessageWithBodiesSchema = InboxMessageSchema.extend({
  text: z.string().openapi({ description: 'The plain-text body (empty when the mail had none)' }),
  html: z.string().openapi({ description: 'The HTML body as sent (empty when the mail had none); not sanitised' }),
  code: z.string().nullable().openapi({
    description: 'The likely one-time code, as a wait_for_email step takes it (of `codeShape` when given)',
    example: '482913',
  }),
  link: z
    .string()
    .nullable()
    .openapi({ description: 'The link a wait_for_email step takes (`linkPattern` narrows it)' }),
}).openapi('InboxMessageWithBodies');

export const InboxListQuery = z.object({
  to: z
    .string()
    .min(3)
    .max(320)
    .optional()
    .openapi({ description: 'Only mail to this address', example: 'run-3f9a0c1d2b4e5f60@inbox.proctor.localhost' }),
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
});

export const InboxMessageParams = pathParams({
  messageId: z.string().uuid().openapi({ example: '0f8c2a3e-6b1d-4e5f-9a7c-2d3e4f5a6b7c' }),
});

export const InboxMessageQuery = z.object({
  linkPattern: z.string().min(1).max(500).optional().openapi({ description: 'Take the first link containing this' }),
  codeShape: z
    .string()
    .regex(
      codeShapePattern,
      'must be a code shape: A for a letter, 9 for a digit, groups joined by one dash or space (e.g. AAAA-AAAA, 999999, 999 999)',
    )
    .optional()
    .openapi({
      description:
        'Take only a code of this shape (A a letter, 9 a digit, separators kept), as a recorded wait_for_email step does: the same groups and separators; a shape of digits takes digits, one with letters takes letters or digits anywhere. `code` is null when the mail holds none',
      example: 'AAAA-AAAA',
    }),
});

export const InboxAddressBody = z
  .object({
    name: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,30}$/,
        'must be 1-31 lower-case letters, digits or dashes, starting with a letter or digit',
      )
      .optional()
      .openapi({
        description:
          "`{{INBOX:name}}`: the project's fixed inbox of that name. Without it, a fresh address, as `{{INBOX}}` is in a run",
        example: 'support',
      }),
  })
  .strict();

export const InboxAddressSchema = z
  .object({
    address: z.string().openapi({ example: 'run-3f9a0c1d2b4e5f60@inbox.proctor.localhost' }),
    since: z.string().datetime().openapi({
      description:
        "The server time the address was handed out: mail received before it is not this caller's (a named inbox keeps older mail)",
    }),
  })
  .openapi('InboxAddress');

/** A `wait_for_email` step's settings as the API shows and takes them (`EmailStep` in src/domain/inbox.ts). */
export const EmailStepSchema = z
  .object({
    subject: z.string().max(1000).optional().openapi({ description: 'Part of the subject (any case)' }),
    from: z.string().max(500).optional().openapi({ description: 'Part of the From header (any case)' }),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .max(300_000)
      .optional()
      .openapi({ description: 'How long to wait for the mail', example: 30_000 }),
    linkPattern: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: '{{EMAIL_LINK}} is the first link containing this' }),
    expects: z
      .array(z.enum(['code', 'link']))
      .optional()
      .openapi({ description: 'What the mail held at burn-in: replay fails when a later mail lacks it' }),
    codeShape: z
      .string()
      .regex(
        codeShapePattern,
        'must be a code shape: A for a letter, 9 for a digit, groups joined by one dash or space',
      )
      .optional()
      .openapi({
        description:
          "The shape of the burn-in mail's code (A a letter, 9 a digit): replay and the exported spec take a code of this kind",
        example: 'AAAA-AAAA',
      }),
  })
  .openapi('EmailStep');
