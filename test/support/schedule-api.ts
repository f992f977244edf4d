// The checks the API tests of test plan schedules and discovery schedules share: each kind of schedule is a row and a
// Temporal Schedule (`plan-schedule:<id>`, `discovery-schedule:<id>`) created, listed and deleted together.
// Imported as a namespace: `schedules.expectStarts(…)`.
import { ScheduleNotFoundError } from '@temporalio/client';
import { expect } from 'vitest';
import type { ApiContext } from './app-context.js';

export type ScheduleTable = 'test_plan_schedules' | 'discovery_schedules';

/** The schedule's row, which must exist. */
export const row = (ctx: ApiContext, table: ScheduleTable, id: string) =>
  ctx.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/**
 * Checks that the Temporal Schedule starts `workflowType` on the API's task queue with these arguments and overlap
 * policy; returns its description for the caller's further checks.
 */
export async function expectStarts(
  ctx: ApiContext,
  temporalScheduleId: string,
  want: { workflowType: string; args: unknown[]; overlap: string },
) {
  const described = await (await ctx.deps.temporal.get()).schedule.getHandle(temporalScheduleId).describe();
  expect(described.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: want.workflowType,
    taskQueue: ctx.deps.temporal.taskQueue,
  });
  expect(described.action.args).toEqual(want.args);
  expect(described.policies.overlap).toBe(want.overlap);
  return described;
}

/** Checks that the schedules at `path` are listed (200) in this order with these ids and crons; returns them. */
export async function expectList(ctx: ApiContext, path: string, want: [id: string, cron: string][]) {
  const list = await ctx.call('GET', path);
  expect(list.status).toBe(200);
  expect(list.body.schedules.map((s: { id: string; cron: string }) => [s.id, s.cron])).toEqual(want);
  return list.body.schedules as { id: string; cron: string; nextRunTimes: string[] }[];
}

/** Creates one schedule a cron at `path`; returns their ids. */
export async function create(ctx: ApiContext, path: string, crons: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const cron of crons) ids.push((await ctx.call('POST', path, { cron })).body.id as string);
  return ids;
}

/** Checks that none of these Temporal Schedules exists any more. */
export async function expectGone(ctx: ApiContext, temporalScheduleIds: string[]): Promise<void> {
  const client = await ctx.deps.temporal.get();
  for (const id of temporalScheduleIds)
    await expect(client.schedule.getHandle(id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
}
