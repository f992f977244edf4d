import { z } from '@hono/zod-openapi';

/** An extension to the spec on burn-ins (test cases), runs, chat turns and change reviews: what their LLM calls came to. */
export const UsageSchema = z
  .object({
    calls: z.number().int().openapi({ description: 'LLM calls made', example: 7 }),
    promptTokens: z.number().int().openapi({ example: 11_840 }),
    completionTokens: z.number().int().openapi({ example: 612 }),
    cachedTokens: z.number().int().openapi({
      description:
        'Prompt tokens the server read from its prompt cache (part of `promptTokens`; 0 when it does not say)',
      example: 8_960,
    }),
    estimated: z.boolean().openapi({
      description:
        'true when a server sent no `usage` for some call and its tokens were estimated (about 4 characters a token)',
    }),
    costUsd: z.number().optional().openapi({
      description: "US dollars, when every call's model has a price in PROCTOR_LLM_PRICES",
      example: 0.005714,
    }),
  })
  .openapi('LlmUsage');

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');

export const UsageQuery = z.object({
  from: day
    .optional()
    .openapi({ description: 'First UTC day included (default: 29 days before `to`)', example: '2026-11-01' }),
  to: day.optional().openapi({ description: 'Last UTC day included (default: today)', example: '2026-11-30' }),
});

export const BudgetSchema = z
  .object({
    dailyTokens: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .nullable()
      .openapi({ description: 'Prompt + completion tokens a UTC day; null: no limit', example: 2_000_000 }),
    dailyUsd: z
      .number()
      .min(0)
      .max(1e12)
      .nullable()
      .openapi({ description: 'US dollars a UTC day (priced calls, PROCTOR_LLM_PRICES); null: no limit', example: 5 }),
  })
  .openapi('LlmBudget');

export const UsageDaysSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    days: z
      .array(
        UsageSchema.extend({
          date: z.string().openapi({ example: '2026-11-28' }),
          byPurpose: z
            .object({
              burnIn: UsageSchema.optional(),
              heal: UsageSchema.optional(),
              chat: UsageSchema.optional(),
              review: UsageSchema.optional(),
            })
            .openapi({
              description:
                'The day by what the calls served: burn-ins, heals in runs, chat turns, change reviews (those with calls only)',
            }),
        }),
      )
      .openapi({ description: 'Days with calls, oldest first' }),
    total: UsageSchema,
    budget: BudgetSchema.extend({
      spentToday: UsageSchema.openapi({ description: "Today's usage (UTC), `costUsd` summed over the priced calls" }),
      exceeded: z.boolean().openapi({
        description:
          'true: new LLM work (burn-ins, chat turns, reviews, heals) is refused until tomorrow or a higher budget',
      }),
    }),
  })
  .openapi('LlmUsageByDay');
