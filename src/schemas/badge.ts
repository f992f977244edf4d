import { z } from '@hono/zod-openapi';
import { name, shortId } from './common.js';

// The status badge's URL parameters (src/api/routes/badge.ts), and what the dashboard's badge form asks for a new
// badge URL: the same plan and label rules, plus a name for the badge token.

export const BadgeQuery = z.object({
  token: z.string().optional().openapi({
    description: 'A badge token (`prb_…`) of the project. Required; an API token (`prt_…`) is refused with 403.',
    example: 'prb_0123456789abcdefghijklmnopqrstuvwxyzABCD',
  }),
  testPlanShortId: shortId('testPlan')
    .optional()
    .openapi({ description: 'Show this plan’s latest run instead of the project’s' }),
  label: z.string().max(64).default('proctor').openapi({ description: 'Left-hand text of the badge', example: 'e2e' }),
});

export const CreateBadgeLink = BadgeQuery.pick({ testPlanShortId: true, label: true }).extend({ name: name(80) });

/** A badge token as `GET /v1/badge-tokens` lists it: never the token, only its first characters. */
export const BadgeTokenSchema = z
  .object({
    id: z.string().uuid().openapi({ description: 'Revoke it with `DELETE /v1/badge-tokens/{id}`' }),
    name: z.string().openapi({ example: 'README badge' }),
    prefix: z
      .string()
      .openapi({ description: 'The token’s first 8 characters, to tell tokens apart', example: 'prb_0123' }),
    createdAt: z.string().openapi({ example: '2026-11-30T09:00:00.000Z' }),
    lastUsedAt: z.string().nullable().openapi({
      description: 'When it last showed a badge (kept to the minute: written at most once a minute); null: never used',
      example: '2026-11-30T09:41:00.000Z',
    }),
  })
  .openapi('BadgeToken');

export const CreatedBadgeTokenSchema = BadgeTokenSchema.extend({
  token: z.string().openapi({
    description: 'The badge token itself: shown only in this answer',
    example: 'prb_0123456789abcdefghijklmnopqrstuvwxyzABCD',
  }),
  url: z.string().openapi({
    description: 'The badge’s URL with the token (PROCTOR_PUBLIC_URL/v1/badge.svg?token=…)',
    example: 'https://proctor.example.com/v1/badge.svg?token=prb_0123456789abcdefghijklmnopqrstuvwxyzABCD',
  }),
  markdown: z.string().openapi({
    description: 'The badge as Markdown for a README',
    example: '![proctor](https://proctor.example.com/v1/badge.svg?token=prb_…)',
  }),
}).openapi('CreatedBadgeToken');

/** `POST /v1/badge-tokens`: the dashboard's form as JSON; an unknown field is refused rather than silently showing the project's badge. */
export const CreateBadgeToken = CreateBadgeLink.extend({
  name: CreateBadgeLink.shape.name
    .default('badge token')
    .openapi({ description: 'Says where the badge is used, so it can be revoked later', example: 'README badge' }),
})
  .strict()
  .openapi('CreateBadgeToken');
