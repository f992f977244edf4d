import { z } from '@hono/zod-openapi';
import { httpUrl, name, pathParams, shortId, shortIdDocPattern, uuid } from './common.js';
import { shortIdPattern } from '../domain/short-ids.js';

// Request and response shapes of the test plan routes (src/api/routes/test-plans.ts); the dashboard's forms validate with them too.

/** A test plan in a path; its schedules sit under it. */
export const TestPlanParams = pathParams({ testPlanShortId: shortId('testPlan') });

const webhookUrl = httpUrl().openapi({ example: 'https://hooks.slack.com/services/T000/B000/XXXX' });

export const NotifyOn = z
  .enum(['failure', 'always'])
  .openapi({ description: '`failure`: only when the run does not pass; `always`: after every run' });

const description = z.string().trim().max(2000);
const owner = z.string().trim().min(1).max(120).openapi({ example: 'qa@shop.example.com' });

// The spec's rule: an application's environment in a plan is always required and cannot be cleared.
const environmentRequired = 'environment is required and cannot be cleared';
const environmentShortId = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? environmentRequired : undefined) })
  .regex(
    new RegExp(shortIdDocPattern('environment')),
    `must be an environment short id matching ${shortIdPattern('environment')}`,
  )
  .openapi({
    pattern: shortIdDocPattern('environment'),
    example: 'env-staging_8d2kq0x1mzpa',
    description: 'Must be an environment of that application; required',
  });

const PlanApplicationInput = z
  .object({
    applicationShortId: shortId('application'),
    environmentShortId,
    devicePresetShortId: shortId('devicePreset')
      .nullable()
      .optional()
      .openapi({ description: "null or absent: the application's default device preset" }),
  })
  .openapi('TestPlanApplicationParametersInput');

export const planApplications = z
  .array(PlanApplicationInput)
  .max(100)
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      if (seen.has(entry.applicationShortId)) {
        ctx.addIssue({
          code: 'custom',
          path: [i, 'applicationShortId'],
          message: `application ${entry.applicationShortId} is listed more than once`,
        });
      }
      seen.add(entry.applicationShortId);
    });
  })
  // Not `uniqueItems`: that compares whole entries, while the rule is one entry per application.
  .openapi({
    description:
      'Per-application plan parameters (replaces the whole list); applications without an entry use the project settings. ' +
      'Each application at most once.',
  });

export const testCaseIds = z
  .array(uuid())
  .max(1000)
  .superRefine((ids, ctx) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (seen.has(id.toLowerCase()))
        ctx.addIssue({ code: 'custom', path: [i], message: `test case ${id} is listed more than once` });
      seen.add(id.toLowerCase());
    });
  })
  .openapi({
    uniqueItems: true,
    description:
      "Ids of the project's test cases, in run order (replaces the whole list); each at most once (compared case-insensitively)",
  });

export const NotificationSettings = z
  .object({
    email: z
      .object({
        recipients: z
          .array(z.email())
          .min(1)
          .max(20)
          .openapi({ example: ['qa@shop.example.com'] }),
        notifyOn: NotifyOn.default('failure'),
      })
      .nullable()
      .optional()
      .openapi({ description: 'null removes email notifications; absent keeps them as they are' }),
    slack: z
      .object({
        webhookUrl: webhookUrl.openapi({ description: 'Incoming-webhook URL of Slack or a compatible chat tool' }),
        channel: z.string().trim().min(1).max(80).optional().openapi({ example: '#qa' }),
        notifyOn: NotifyOn.default('failure'),
      })
      .nullable()
      .optional()
      .openapi({ description: 'null removes chat-tool notifications; absent keeps them as they are' }),
  })
  .openapi('TestPlanNotificationSettings');

export const CreateTestPlan = z
  .object({
    name: name(120).openapi({ example: 'Smoke' }),
    description: description.optional(),
    owner: owner.optional(),
    testCaseIds: testCaseIds.default([]),
    applications: planApplications.default([]),
    notifications: NotificationSettings.optional(),
    isDefault: z.boolean().optional().openapi({
      description:
        "Make it the project's default plan (moving the default from another plan). Absent: it becomes the default only if the project has none.",
    }),
  })
  .openapi('CreateTestPlan');

export const UpdateTestPlan = z
  .object({
    name: name(120).optional(),
    description: description.nullable().optional().openapi({ description: 'null clears it' }),
    owner: owner.nullable().optional().openapi({ description: 'null clears it' }),
    testCaseIds: testCaseIds.optional(),
    applications: planApplications.optional(),
    notifications: NotificationSettings.optional(),
    isDefault: z.boolean().optional().openapi({
      description:
        'true moves the project default to this plan; false leaves the project without a default if it was this plan',
    }),
  })
  .openapi('UpdateTestPlan');

const EmailNotificationSchema = z
  .object({
    recipients: z.array(z.string()).openapi({ description: 'In alphabetical order, without duplicates' }),
    notifyOn: NotifyOn,
  })
  .openapi('TestPlanEmailNotification');

const SlackNotificationSchema = z
  .object({ webhookUrl: z.string(), channel: z.string().nullable(), notifyOn: NotifyOn })
  .openapi('TestPlanSlackNotification');

export const TestPlanSchema = z
  .object({
    shortId: shortId('testPlan'),
    name: z.string().openapi({ example: 'Smoke' }),
    description: z.string().nullable(),
    owner: z.string().nullable(),
    isDefault: z
      .boolean()
      .openapi({ description: "The project's default plan, run by `POST /v1/run` without a `testPlanShortId`" }),
    testCases: z.array(
      z.object({ id: z.string().uuid(), name: z.string(), applicationShortId: shortId('application') }),
    ),
    applications: z
      .array(
        z
          .object({
            applicationShortId: shortId('application'),
            environmentShortId: shortId('environment'),
            devicePresetShortId: shortId('devicePreset')
              .nullable()
              .openapi({ description: "null: the application's default device preset" }),
          })
          .openapi('TestPlanApplicationParameters'),
      )
      .openapi({
        description: 'Per-application plan parameters; applications without an entry use the project settings',
      }),
    notifications: z.object({ email: EmailNotificationSchema.nullable(), slack: SlackNotificationSchema.nullable() }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
  })
  .openapi('TestPlan');
