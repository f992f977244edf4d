import { z } from '@hono/zod-openapi';
import { httpUrl, shortId } from './common.js';
import { DiscoveryBudgetInput, CreateDiscovery } from './discoveries.js';
import { cron } from './plan-schedules.js';

// Request and response shapes of the discovery schedule routes (src/api/routes/discovery-schedules.ts).

export const CreateDiscoverySchedule = z
  .object({
    cron,
    description: z.string().trim().max(500).optional().openapi({ example: 'Nightly map' }),
    environmentShortId: CreateDiscovery.shape.environmentShortId,
    budget: DiscoveryBudgetInput.optional(),
    intent: CreateDiscovery.shape.intent,
    notify: z
      .object({
        emails: z
          .array(z.email())
          .max(20)
          .optional()
          .openapi({ example: ['qa@shop.example.com'] }),
        slack: z
          .object({
            webhookUrl: httpUrl().openapi({ description: 'Incoming-webhook URL of Slack or a compatible chat tool' }),
            channel: z.string().trim().min(1).max(80).optional().openapi({ example: '#qa' }),
          })
          .optional(),
      })
      .optional()
      .openapi({
        description:
          'Who hears of the page patterns and forms a scheduled discovery finds that the previous completed one did not have',
      }),
  })
  .openapi('CreateDiscoverySchedule');

export const DiscoveryScheduleSchema = z
  .object({
    id: z.string().uuid(),
    cron: z.string().openapi({ example: '0 3 * * *' }),
    description: z.string().nullable(),
    environmentShortId: shortId('environment').nullable().openapi({
      description: "null: the application's default environment at each run",
    }),
    budget: z
      .object({ pages: z.number().int(), actions: z.number().int(), minutes: z.number().int() })
      .partial()
      .nullable(),
    intent: z.string().nullable(),
    notify: z.object({
      emails: z.array(z.string()),
      slack: z
        .object({ host: z.string(), channel: z.string().nullable() })
        .nullable()
        .openapi({ description: "The webhook's host only: its URL is a secret" }),
    }),
    nextRunTimes: z.array(z.string().datetime()).optional().openapi({
      description: 'The next (up to 3) times a discovery starts, from Temporal; absent while Temporal is unreachable',
    }),
    createdAt: z.string().datetime(),
  })
  .openapi('DiscoverySchedule');
