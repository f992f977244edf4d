import { z } from '@hono/zod-openapi';
import type { OpenApiApp } from '../openapi.js';
import { serveResource } from '../operation-routes.js';
import { deleted, resource } from '../resource-routes.js';
import { shortId, uuid } from '../../schemas/common.js';
import { requireTestPlan } from '../../services/test-plans.js';
import { createSchedule, deleteSchedule, listPlanSchedules } from '../../services/plan-schedules.js';
import { CreatePlanSchedule, PlanScheduleSchema } from '../../schemas/plan-schedules.js';

const PlanParams = z.object({
  testPlanShortId: shortId('testPlan').openapi({ param: { name: 'testPlanShortId', in: 'path' } }),
});
const ScheduleParams = PlanParams.extend({ scheduleId: uuid().openapi({ param: { name: 'scheduleId', in: 'path' } }) });

const schedules = resource({
  path: '/v1/test-plans/{testPlanShortId}/schedules/{scheduleId}',
  tags: ['Management'],
  noun: ['a schedule', 'schedules'],
  schema: PlanScheduleSchema,
  params: ScheduleParams,
  parentParams: PlanParams,
});

const routes = {
  list: schedules.list('schedules', {
    summary: "List a test plan's cron schedules",
    answer: 'Schedules of the plan, oldest first',
  }),
  create: schedules.create(CreatePlanSchedule, {
    summary: 'Schedule runs of a test plan with a cron expression',
    description:
      "Each time the expression fires, a run of the plan starts with trigger `SCHEDULE`, the plan's parameters and notifications. " +
      'A run that is still going when the next one is due delays that one until it ends (later ticks meanwhile are dropped): runs of one plan never overlap. ' +
      'A plan without enabled test cases at that time is skipped.',
    answer: 'Scheduled',
    unavailable: 'Temporal is unreachable; nothing was saved',
  }),
  remove: schedules.remove({
    summary: 'Delete a schedule (a run it already started goes on)',
    unavailable: 'Temporal is unreachable; the schedule is kept',
  }),
};

export function registerTestPlanSchedules(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, param }) => {
      const plan = await requireTestPlan(services, projectId, param.testPlanShortId);
      return { schedules: await listPlanSchedules(services, plan.id) };
    },
    create: ({ services, projectId, logger, param, body }) =>
      createSchedule(
        { db: services.db, temporal: services.temporal, logger, runConcurrency: services.runConcurrency },
        { projectId, testPlanShortId: param.testPlanShortId, ...body },
      ),
    remove: async ({ services, projectId, param }) => deleted(await deleteSchedule(services, { projectId, ...param })),
  });
}
