import { z } from '@hono/zod-openapi';
import { pathParams, shortId, uuid } from './common.js';
import { budgetLimits, discoveryStatuses, maxIntentLength } from '../domain/discovery-run.js';
import { defaultDiscoveryBudget } from '../domain/discovery.js';

// Request and response shapes of the discovery routes (src/api/routes/discoveries.ts).

const limit = (max: number, what: string, fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .optional()
    .openapi({ description: `${what} (default ${fallback}, at most ${max})`, example: fallback });

export const DiscoveryBudgetInput = z
  .object({
    pages: limit(budgetLimits.pages, 'Distinct URLs visited', defaultDiscoveryBudget.pages),
    actions: limit(
      budgetLimits.actions,
      'Controls operated (reveal controls, searches)',
      defaultDiscoveryBudget.actions,
    ),
    minutes: limit(budgetLimits.minutes, 'Minutes from the start', defaultDiscoveryBudget.minutes),
  })
  .openapi('DiscoveryBudgetInput', { description: 'It stops at whichever limit comes first' });

export const CreateDiscovery = z
  .object({
    environmentShortId: shortId('environment')
      .optional()
      .openapi({ description: "An environment of the application with a URL (default: the application's default)" }),
    budget: DiscoveryBudgetInput.optional(),
    intent: z
      .string()
      .trim()
      .max(maxIntentLength)
      .optional()
      .openapi({ description: 'What to look at first, in words (at most 500 characters)', example: 'the checkout' }),
    resumeFromTestCaseId: uuid().optional().openapi({
      description:
        "A recorded test case of the same application (a login test): the discovery's browser starts with the state it ends in",
    }),
  })
  .openapi('CreateDiscovery');

const Budget = z.object({ pages: z.number().int(), actions: z.number().int(), minutes: z.number().int() });

export const DiscoverySchema = z
  .object({
    shortId: shortId('discovery'),
    applicationShortId: shortId('application'),
    environmentShortId: shortId('environment').nullable(),
    startUrl: z.string(),
    status: z.enum(discoveryStatuses),
    stopReason: z.enum(['explored', 'pages', 'actions', 'minutes']).nullable().openapi({
      description: 'Why a COMPLETED discovery stopped: nothing left to visit, or the budget limit it reached',
    }),
    budget: Budget,
    intent: z.string().nullable(),
    resumeFromTestCaseId: z.string().uuid().nullable(),
    pages: z.number().int().openapi({ description: 'Pages visited so far' }),
    actions: z.number().int().openapi({ description: 'Controls operated so far' }),
    error: z.string().nullable(),
    createdAt: z.string().datetime(),
    startedAt: z.string().datetime().nullable(),
    finishedAt: z.string().datetime().nullable(),
  })
  .openapi('Discovery');

export const DiscoveryParams = pathParams({ discoveryShortId: shortId('discovery') });
export const DiffQuery = z.object({
  against: shortId('discovery').openapi({
    param: { name: 'against', in: 'query' },
    description: 'The earlier discovery to compare with (of the same application)',
  }),
});

const Field = z.object({ label: z.string(), name: z.string(), type: z.string(), required: z.boolean() });
const Form = z
  .object({
    key: z.string(),
    name: z.string(),
    method: z.enum(['get', 'post', 'dialog']),
    action: z.string(),
    fields: z.array(Field),
    submit: z.string().nullable(),
    search: z.boolean(),
  })
  .openapi('DiscoveredForm');
const Action = z.object({
  role: z.string(),
  name: z.string(),
  kind: z.enum(['reveal', 'navigate', 'submit', 'destructive', 'sign-out', 'other']),
});

export const DiscoveryMapSchema = z
  .object({
    discovery: DiscoverySchema,
    patterns: z.array(
      z.object({
        pattern: z.string().openapi({ example: '/orders/{id}' }),
        pages: z.array(
          z.object({
            url: z.string(),
            finalUrl: z.string(),
            status: z.number().int(),
            title: z.string(),
            error: z.string().nullable(),
          }),
        ),
        headings: z.array(z.string()),
        forms: z.array(Form),
        actions: z.array(Action),
        linksTo: z.array(z.string()),
      }),
    ),
    links: z.array(z.object({ from: z.string(), to: z.string() })),
  })
  .openapi('DiscoveryMap');

const PatternForm = z.object({ pattern: z.string(), form: Form });
export const DiscoveryDiffSchema = z
  .object({
    from: shortId('discovery'),
    to: shortId('discovery'),
    patterns: z.object({
      added: z.array(z.string()),
      removed: z.array(z.string()),
      changed: z.array(z.object({ pattern: z.string(), what: z.array(z.string()) })),
    }),
    forms: z.object({
      added: z.array(PatternForm),
      removed: z.array(PatternForm),
      changed: z.array(z.object({ pattern: z.string(), name: z.string(), before: Form, after: Form })),
    }),
  })
  .openapi('DiscoveryDiff');
