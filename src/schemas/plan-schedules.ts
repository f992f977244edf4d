import { z } from '@hono/zod-openapi';
import { cronProblem } from '../domain/cron.js';

// Request and response shapes of the plan schedule routes (src/api/routes/test-plan-schedules.ts); the dashboard's form
// validates with the request ones too.

export const cron = z
  .string()
  .max(200)
  .superRefine((value, ctx) => {
    const problem = cronProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({
    example: '0 6 * * 1-5',
    description:
      'Standard 5-field cron (`minute hour day-of-month month day-of-week`, UTC unless prefixed with `CRON_TZ=<IANA zone>`); ' +
      "also Temporal's forms: `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`, `@every <duration>` (at least 1m), " +
      'a 6th field for the year, or 7 fields with a leading second. At most one run a minute; `#` is not supported.',
  });

export const CreatePlanSchedule = z
  .object({
    cron,
    description: z
      .string()
      .trim()
      .max(500)
      .optional()
      .openapi({ example: 'Weekday mornings', description: "Shown as the runs' actor: `schedule:<description>`" }),
  })
  .openapi('CreateTestPlanSchedule');

export const PlanScheduleSchema = z
  .object({
    id: z.string().uuid(),
    cron: z.string().openapi({ example: '0 6 * * 1-5' }),
    description: z.string().nullable().openapi({ example: 'Weekday mornings' }),
    nextRunTimes: z.array(z.string().datetime()).optional().openapi({
      description: 'The next (up to 3) times a run starts, from Temporal; absent while Temporal is unreachable',
    }),
    createdAt: z.string().datetime(),
  })
  .openapi('TestPlanSchedule');
