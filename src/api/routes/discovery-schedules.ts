import type { OpenApiApp } from '../openapi.js';
import { serveResource } from '../operation-routes.js';
import { deleted } from '../resource-routes.js';
import { scheduleRoutes } from '../schedule-routes.js';
import { ApplicationParams } from '../../schemas/applications.js';
import { CreateDiscoverySchedule, DiscoveryScheduleSchema } from '../../schemas/discovery-schedules.js';
import {
  createDiscoveryScheduleFor,
  deleteDiscoverySchedule,
  listDiscoverySchedules,
} from '../../services/discovery-schedules.js';

// Discovery on a schedule (issue 34, item 5): an application's discoveries on a cron, through Temporal Schedules, as
// a test plan's runs (test-plan-schedules.ts).

const routes = scheduleRoutes({
  path: '/v1/applications/{applicationShortId}/discovery-schedules/{scheduleId}',
  tags: ['Discovery'],
  noun: ['a discovery schedule', 'discovery schedules'],
  schema: DiscoveryScheduleSchema,
  parentParams: ApplicationParams,
  list: {
    summary: "List an application's discovery schedules",
    answer: 'Discovery schedules of the application, oldest first',
  },
  create: {
    body: CreateDiscoverySchedule,
    summary: 'Schedule discoveries of an application with a cron expression',
    description:
      'Each time the expression fires, a discovery of the application starts as `POST /v1/applications/{applicationShortId}/discoveries` would start it. ' +
      'A tick that falls while the previous scheduled discovery still runs is skipped. When a scheduled discovery completes, the page patterns and forms ' +
      "that the application's previous completed discovery did not have are sent to `notify`.",
  },
  remove: { summary: 'Delete a discovery schedule (a discovery it already started goes on)' },
});

export function registerDiscoverySchedules(app: OpenApiApp): void {
  serveResource(app, routes, {
    list: async ({ services, projectId, logger, param }) => ({
      schedules: await listDiscoverySchedules({ ...services, logger }, projectId, param.applicationShortId),
    }),
    create: ({ services, projectId, logger, param, body }) =>
      createDiscoveryScheduleFor({ ...services, logger }, projectId, param.applicationShortId, body),
    remove: async ({ services, projectId, param }) =>
      deleted(await deleteDiscoverySchedule(services, projectId, param.applicationShortId, param.scheduleId)),
  });
}
