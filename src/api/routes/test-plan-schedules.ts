import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, shortId, uuid } from '../../schemas/common.js';
import { ApiError, notFound } from '../errors.js';
import { requireTestPlan } from '../../services/test-plans.js';
import { listPlanSchedules, nextRunTimes, toPlanScheduleView as toView } from '../../services/plan-schedules.js';
import { newId } from '../../ids.js';
import {
  createPlanSchedule,
  cronProblem,
  deletePlanSchedule,
  InvalidCronError,
  planScheduleId,
} from '../../temporal/schedules.js';

const cron = z
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

const PlanScheduleSchema = z
  .object({
    id: z.string().uuid(),
    cron: z.string().openapi({ example: '0 6 * * 1-5' }),
    description: z.string().nullable().openapi({ example: 'Weekday mornings' }),
    nextRunTimes: z
      .array(z.string().datetime())
      .optional()
      .openapi({ description: 'The next (up to 3) times a run starts, from Temporal; absent while Temporal is unreachable' }),
    createdAt: z.string().datetime(),
  })
  .openapi('TestPlanSchedule');

const CreatePlanSchedule = z
  .object({
    cron,
    description: z.string().trim().max(500).optional().openapi({ example: 'Weekday mornings', description: "Shown as the runs' actor: `schedule:<description>`" }),
  })
  .openapi('CreateTestPlanSchedule');

const PlanParams = z.object({
  testPlanShortId: shortId('testPlan').openapi({ param: { name: 'testPlanShortId', in: 'path' } }),
});
const ScheduleParams = PlanParams.extend({ scheduleId: uuid().openapi({ param: { name: 'scheduleId', in: 'path' } }) });

const tags = ['Management'];
const base = '/v1/test-plans/{testPlanShortId}/schedules';

const routes = {
  list: createRoute({
    method: 'get', path: base, tags, security: bearerSecurity,
    summary: "List a test plan's cron schedules",
    request: { params: PlanParams },
    responses: { 200: json(z.object({ schedules: z.array(PlanScheduleSchema) }), 'Schedules of the plan, oldest first'), ...errorResponses },
  }),
  create: createRoute({
    method: 'post', path: base, tags, security: bearerSecurity,
    summary: 'Schedule runs of a test plan with a cron expression',
    description:
      "Each time the expression fires, a run of the plan starts with trigger `SCHEDULE`, the plan's parameters and notifications. " +
      'A run that is still going when the next one is due delays that one until it ends (later ticks meanwhile are dropped): runs of one plan never overlap. ' +
      'A plan without enabled test cases at that time is skipped.',
    request: { params: PlanParams, body: jsonBody(CreatePlanSchedule) },
    responses: { 201: json(PlanScheduleSchema, 'Scheduled'), 503: json(ErrorSchema, 'Temporal is unreachable; nothing was saved'), ...errorResponses },
  }),
  remove: createRoute({
    method: 'delete', path: `${base}/{scheduleId}`, tags, security: bearerSecurity,
    summary: 'Delete a schedule (a run it already started goes on)',
    request: { params: ScheduleParams },
    responses: { 200: json(Deleted, 'Deleted'), 503: json(ErrorSchema, 'Temporal is unreachable; the schedule is kept'), ...errorResponses },
  }),
};

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function registerTestPlanSchedules(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const deps = c.get('deps');
    const plan = await requireTestPlan(deps.db, c.get('caller').projectId, c.req.valid('param').testPlanShortId);
    return c.json({ schedules: await listPlanSchedules(deps, plan.id) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const deps = c.get('deps');
    const { projectId } = c.get('caller');
    const plan = await requireTestPlan(deps.db, projectId, c.req.valid('param').testPlanShortId);
    const body = c.req.valid('json');
    const id = newId();
    // The row first: a tick finds it (for its description), and a failure below removes it again.
    const row = await deps.db
      .insertInto('test_plan_schedules')
      .values({ id, test_plan_id: plan.id, cron: body.cron.trim(), description: body.description || null, temporal_schedule_id: planScheduleId(id) })
      .returningAll()
      .executeTakeFirstOrThrow();
    const removeRow = () => deps.db.deleteFrom('test_plan_schedules').where('id', '=', id).execute();
    try {
      await createPlanSchedule(deps.temporal, {
        scheduleId: row.temporal_schedule_id,
        cron: row.cron,
        description: row.description,
        projectId,
        testPlanId: plan.id,
        concurrency: deps.config.PROCTOR_RUN_CONCURRENCY,
      });
    } catch (err) {
      await removeRow();
      if (err instanceof InvalidCronError) throw new ApiError(400, err.message);
      c.get('logger').warn('could not create a plan schedule', { testPlanId: plan.id, err });
      throw new ApiError(503, `could not create the schedule in Temporal: ${reason(err)}`);
    }
    const times = await nextRunTimes(deps, row.temporal_schedule_id);
    // Valid syntax that matches no future time (31 February, a past year) is a mistake, not a schedule.
    if (times?.length === 0) {
      await deletePlanSchedule(deps.temporal, row.temporal_schedule_id);
      await removeRow();
      throw new ApiError(400, `cron: "${row.cron}" never fires`);
    }
    return c.json(toView(row, times), 201);
  });

  app.openapi(routes.remove, async (c) => {
    const deps = c.get('deps');
    const params = c.req.valid('param');
    const plan = await requireTestPlan(deps.db, c.get('caller').projectId, params.testPlanShortId);
    const row = await deps.db
      .selectFrom('test_plan_schedules')
      .select(['id', 'temporal_schedule_id'])
      .where('id', '=', params.scheduleId.toLowerCase())
      .where('test_plan_id', '=', plan.id)
      .executeTakeFirst();
    if (!row) throw notFound('Schedule');
    // Temporal first: a row without its Schedule is harmless, a Schedule without its row would keep firing for nothing.
    try {
      await deletePlanSchedule(deps.temporal, row.temporal_schedule_id);
    } catch (err) {
      throw new ApiError(503, `could not delete the schedule in Temporal (it is kept): ${reason(err)}`);
    }
    await deps.db.deleteFrom('test_plan_schedules').where('id', '=', row.id).execute();
    return c.json({ deleted: true as const }, 200);
  });
}
