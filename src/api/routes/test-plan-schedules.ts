import type { OpenApiApp } from '../openapi.js';
import { serveResource } from '../operation-routes.js';
import { deleted } from '../resource-routes.js';
import { scheduleRoutes } from '../schedule-routes.js';
import { TestPlanParams } from '../../schemas/test-plans.js';
import { requireTestPlan } from '../../services/test-plans.js';
import { createSchedule, deleteSchedule, listPlanSchedules } from '../../services/plan-schedules.js';
import { CreatePlanSchedule, PlanScheduleSchema } from '../../schemas/plan-schedules.js';

const routes = scheduleRoutes({
  path: '/v1/test-plans/{testPlanShortId}/schedules/{scheduleId}',
  tags: ['Management'],
  noun: ['a schedule', 'schedules'],
  schema: PlanScheduleSchema,
  parentParams: TestPlanParams,
  list: { summary: "List a test plan's cron schedules", answer: 'Schedules of the plan, oldest first' },
  create: {
    body: CreatePlanSchedule,
    summary: 'Schedule runs of a test plan with a cron expression',
    description:
      "Each time the expression fires, a run of the plan starts with trigger `SCHEDULE`, the plan's parameters and notifications. " +
      'A run that is still going when the next one is due delays that one until it ends (later ticks meanwhile are dropped): runs of one plan never overlap. ' +
      'A plan without enabled test cases at that time is skipped.',
  },
  remove: { summary: 'Delete a schedule (a run it already started goes on)' },
});

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
