import { z } from '@hono/zod-openapi';
import { pathParams, uuid } from '../schemas/common.js';
import type { OperationDoc } from './operation-routes.js';
import { resource } from './resource-routes.js';

/**
 * The routes of cron schedules kept under another resource (a test plan's runs, an application's discoveries):
 * listed under `schedules`, created and deleted in Temporal as well as here, so Temporal unreachable is a 503 that
 * saves nothing on create and keeps the schedule on delete.
 */
export function scheduleRoutes<Item extends z.ZodType, Shape extends z.ZodRawShape, Body extends z.ZodType>(spec: {
  /** The item's path, ending in `/{scheduleId}`. */
  path: string;
  tags: string[];
  noun: readonly [one: string, many: string];
  schema: Item;
  parentParams: z.ZodObject<Shape>;
  list: { summary: string; answer: string };
  create: OperationDoc & { summary: string; body: Body };
  remove: { summary: string };
}) {
  const params = spec.parentParams.extend(pathParams({ scheduleId: uuid() }).shape);
  const schedules = resource({ ...spec, params });
  return {
    list: schedules.list('schedules', spec.list),
    create: schedules.create(spec.create.body, {
      ...spec.create,
      answer: 'Scheduled',
      unavailable: 'Temporal is unreachable; nothing was saved',
    }),
    remove: schedules.remove({ ...spec.remove, unavailable: 'Temporal is unreachable; the schedule is kept' }),
  };
}
