import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, ErrorSchema, errorResponses, json, jsonBody, type OpenApiApp } from '../openapi.js';
import { Deleted, shortId, uuid } from '../../schemas/common.js';
import { requireTestPlan } from '../../services/test-plans.js';
import { createSchedule, deleteSchedule, listPlanSchedules } from '../../services/plan-schedules.js';
import { CreatePlanSchedule } from '../../schemas/plan-schedules.js';

const PlanScheduleSchema = z
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

const PlanParams = z.object({
  testPlanShortId: shortId('testPlan').openapi({ param: { name: 'testPlanShortId', in: 'path' } }),
});
const ScheduleParams = PlanParams.extend({ scheduleId: uuid().openapi({ param: { name: 'scheduleId', in: 'path' } }) });

const tags = ['Management'];
const base = '/v1/test-plans/{testPlanShortId}/schedules';

const routes = {
  list: createRoute({
    method: 'get',
    path: base,
    tags,
    security: bearerSecurity,
    summary: "List a test plan's cron schedules",
    request: { params: PlanParams },
    responses: {
      200: json(z.object({ schedules: z.array(PlanScheduleSchema) }), 'Schedules of the plan, oldest first'),
      ...errorResponses,
    },
  }),
  create: createRoute({
    method: 'post',
    path: base,
    tags,
    security: bearerSecurity,
    summary: 'Schedule runs of a test plan with a cron expression',
    description:
      "Each time the expression fires, a run of the plan starts with trigger `SCHEDULE`, the plan's parameters and notifications. " +
      'A run that is still going when the next one is due delays that one until it ends (later ticks meanwhile are dropped): runs of one plan never overlap. ' +
      'A plan without enabled test cases at that time is skipped.',
    request: { params: PlanParams, body: jsonBody(CreatePlanSchedule) },
    responses: {
      201: json(PlanScheduleSchema, 'Scheduled'),
      503: json(ErrorSchema, 'Temporal is unreachable; nothing was saved'),
      ...errorResponses,
    },
  }),
  remove: createRoute({
    method: 'delete',
    path: `${base}/{scheduleId}`,
    tags,
    security: bearerSecurity,
    summary: 'Delete a schedule (a run it already started goes on)',
    request: { params: ScheduleParams },
    responses: {
      200: json(Deleted, 'Deleted'),
      503: json(ErrorSchema, 'Temporal is unreachable; the schedule is kept'),
      ...errorResponses,
    },
  }),
};

export function registerTestPlanSchedules(app: OpenApiApp): void {
  app.openapi(routes.list, async (c) => {
    const services = c.get('services');
    const plan = await requireTestPlan(services, c.get('caller').projectId, c.req.valid('param').testPlanShortId);
    return c.json({ schedules: await listPlanSchedules(services, plan.id) }, 200);
  });

  app.openapi(routes.create, async (c) => {
    const services = c.get('services');
    const view = await createSchedule(
      {
        db: services.db,
        temporal: services.temporal,
        logger: c.get('logger'),
        runConcurrency: services.runConcurrency,
      },
      {
        projectId: c.get('caller').projectId,
        testPlanShortId: c.req.valid('param').testPlanShortId,
        ...c.req.valid('json'),
      },
    );
    return c.json(view, 201);
  });

  app.openapi(routes.remove, async (c) => {
    await deleteSchedule(c.get('services'), { projectId: c.get('caller').projectId, ...c.req.valid('param') });
    return c.json({ deleted: true as const }, 200);
  });
}
