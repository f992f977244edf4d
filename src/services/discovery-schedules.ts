// An application's cron schedules of discoveries (issue 34, item 5), as a plan's schedules of runs are
// (plan-schedules.ts): the rows are ours, the Schedules and their next fire times are Temporal's; creating and
// deleting keep the two together, and Temporal unreachable keeps nothing (503).
import {
  deleteDiscoveryScheduleRow,
  findDiscoverySchedule,
  insertDiscoverySchedule,
  listDiscoveryScheduleRows,
  type DiscoveryScheduleRow,
} from '../db/queries/discovery-schedules.js';
import { findEnvironment } from '../db/queries/environments.js';
import type { DiscoveryBudget } from '../domain/discovery.js';
import { readNotify, type DiscoveryNotify } from '../domain/discovery-news.js';
import { InvalidError, NotFoundError } from '../domain/errors.js';
import { newId } from '../ids.js';
import { createDiscoverySchedule, discoveryScheduleId } from '../temporal/discovery-schedules.js';
import { requireApplication } from './applications.js';
import type { ServiceContext } from './context.js';
import { nextRunTimes, scheduleRow, unscheduleRow } from './cron-schedules.js';

export interface DiscoveryScheduleView {
  id: string;
  cron: string;
  description: string | null;
  environmentShortId: string | null;
  budget: Partial<DiscoveryBudget> | null;
  intent: string | null;
  /** Where news is sent; a chat webhook is shown by its host only (its URL is a secret). */
  notify: { emails: string[]; slack: { host: string; channel: string | null } | null };
  nextRunTimes?: string[];
  createdAt: string;
}

export interface CreateDiscoveryScheduleInput {
  cron: string;
  description?: string;
  environmentShortId?: string;
  budget?: Partial<DiscoveryBudget>;
  intent?: string;
  notify?: { emails?: string[]; slack?: { webhookUrl: string; channel?: string } };
}

const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : '(invalid URL)');

export function toDiscoveryScheduleView(row: DiscoveryScheduleRow, times: string[] | undefined): DiscoveryScheduleView {
  const notify = readNotify(row.notify);
  return {
    id: row.id,
    cron: row.cron,
    description: row.description,
    environmentShortId: row.environment_short_id,
    budget: row.budget,
    intent: row.intent,
    notify: {
      emails: notify.emails,
      slack: notify.slack && { host: hostOf(notify.slack.webhookUrl), channel: notify.slack.channel },
    },
    ...(times && { nextRunTimes: times }),
    createdAt: row.created_at.toISOString(),
  };
}

/** The application's discovery schedules, oldest first, with their next times. */
export async function listDiscoverySchedules(
  deps: ServiceContext<'temporal' | 'logger'>,
  projectId: string,
  applicationShortId: string,
): Promise<DiscoveryScheduleView[]> {
  const app = await requireApplication(deps, projectId, applicationShortId);
  const rows = await listDiscoveryScheduleRows(deps.db, app.id);
  const times = await Promise.all(rows.map((row) => nextRunTimes(deps, row.temporal_schedule_id)));
  return rows.map((row, i) => toDiscoveryScheduleView(row, times[i]));
}

/**
 * Schedules discoveries of the caller's web application: the row, then its Temporal Schedule. An invalid cron, one
 * that never fires, or an environment of another application is refused (InvalidError / NotFoundError); Temporal
 * unreachable is UnavailableError. Either way nothing is kept.
 */
export async function createDiscoveryScheduleFor(
  deps: ServiceContext<'temporal' | 'logger'>,
  projectId: string,
  applicationShortId: string,
  input: CreateDiscoveryScheduleInput,
): Promise<DiscoveryScheduleView> {
  const app = await requireApplication(deps, projectId, applicationShortId);
  if (app.kind !== 'web')
    throw new InvalidError(
      `application ${app.name} is an ${app.kind} application: discovery explores web applications`,
    );
  let environmentId: string | null = null;
  if (input.environmentShortId) {
    const env = await findEnvironment(deps.db, projectId, input.environmentShortId);
    if (!env || env.application_id !== app.id)
      throw new NotFoundError(`Environment ${input.environmentShortId} of application ${app.shortId}`);
    environmentId = env.id;
  }
  const notify: DiscoveryNotify = {
    emails: input.notify?.emails ?? [],
    slack: input.notify?.slack
      ? { webhookUrl: input.notify.slack.webhookUrl, channel: input.notify.slack.channel ?? null }
      : null,
  };
  const id = newId();
  const temporalScheduleId = discoveryScheduleId(id);
  await insertDiscoverySchedule(deps.db, {
    id,
    projectId,
    applicationId: app.id,
    environmentId,
    cron: input.cron.trim(),
    description: input.description || null,
    budget: input.budget && Object.keys(input.budget).length > 0 ? input.budget : null,
    intent: input.intent || null,
    notify,
    temporalScheduleId,
  });
  const times = await scheduleRow(deps, {
    temporalScheduleId,
    cron: input.cron.trim(),
    createSchedule: () =>
      createDiscoverySchedule(deps.temporal, {
        scheduleId: temporalScheduleId,
        cron: input.cron.trim(),
        description: input.description || null,
        projectId,
        applicationShortId: app.shortId,
      }),
    deleteRow: () => deleteDiscoveryScheduleRow(deps.db, id),
    warning: ['could not create a discovery schedule', { applicationId: app.id }],
  });
  const row = await findDiscoverySchedule(deps.db, app.id, id);
  return toDiscoveryScheduleView(row!, times);
}

/** Deletes a discovery schedule of the caller's application: Temporal first (UnavailableError keeps it), then the row. */
export async function deleteDiscoverySchedule(
  deps: ServiceContext<'temporal'>,
  projectId: string,
  applicationShortId: string,
  scheduleId: string,
): Promise<void> {
  const app = await requireApplication(deps, projectId, applicationShortId);
  const row = await findDiscoverySchedule(deps.db, app.id, scheduleId.toLowerCase());
  if (!row) throw new NotFoundError('Schedule');
  await unscheduleRow(deps, row.temporal_schedule_id, () => deleteDiscoveryScheduleRow(deps.db, row.id));
}
