import { z } from '@hono/zod-openapi';
import { name, shortId } from './common.js';

// The status badge's URL parameters (src/api/routes/badge.ts), and what the dashboard's badge form asks for a new
// badge URL: the same plan and label rules, plus a name for the badge token.

export const BadgeQuery = z.object({
  token: z
    .string()
    .optional()
    .openapi({ description: 'A badge token (`prb_…`) of the project. Required; an API token (`prt_…`) is refused with 403.', example: 'prb_0123456789abcdefghijklmnopqrstuvwxyzABCD' }),
  testPlanShortId: shortId('testPlan').optional().openapi({ description: 'Show this plan’s latest run instead of the project’s' }),
  label: z.string().max(64).default('proctor').openapi({ description: 'Left-hand text of the badge', example: 'e2e' }),
});

export const CreateBadgeLink = BadgeQuery.pick({ testPlanShortId: true, label: true }).extend({ name: name(80) });
