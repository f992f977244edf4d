import { sql, type Transaction } from 'kysely';
import type { DB } from '../database.js';
import type { Database, NotifyOn, TestPlan } from '../schema.js';
import { newId, newShortId } from '../../ids.js';
import { forgetRunsOfPlan } from './runs.js';

export interface EmailNotification {
  recipients: string[];
  notifyOn: NotifyOn;
}

export interface SlackNotification {
  webhookUrl: string;
  channel: string | null;
  notifyOn: NotifyOn;
}

export interface TestPlanView {
  shortId: string;
  name: string;
  description: string | null;
  owner: string | null;
  isDefault: boolean;
  testCases: { id: string; name: string; applicationShortId: string }[];
  applications: { applicationShortId: string; environmentShortId: string; devicePresetShortId: string | null }[];
  notifications: { email: EmailNotification | null; slack: SlackNotification | null };
  createdAt: string;
  updatedAt: string;
}

/** Plan parameters of one application, resolved to internal ids. */
export interface PlanApplication {
  applicationId: string;
  environmentId: string;
  devicePresetId: string | null;
}

/**
 * A write to a plan; an absent field is left as it is. `testCaseIds` and `applications` replace the whole
 * list; in `notifications` each channel present is replaced (null removes it) and an absent one is kept.
 * `isDefault` undefined on creation makes the plan the project's default only when the project has none.
 */
export interface TestPlanWrite {
  name?: string;
  description?: string | null;
  owner?: string | null;
  isDefault?: boolean;
  testCaseIds?: string[];
  applications?: PlanApplication[];
  notifications?: { email?: EmailNotification | null; slack?: SlackNotification | null };
}

type Trx = Transaction<Database>;

export async function listTestPlans(db: DB, projectId: string): Promise<TestPlanView[]> {
  const rows = await selectPlans(db, projectId).orderBy('tp.created_at').orderBy('tp.id').execute();
  const views = await toViews(db, rows);
  return rows.map((row) => views.get(row.id)!);
}

export async function getTestPlan(
  db: DB,
  projectId: string,
  shortId: string,
): Promise<(TestPlanView & { id: string }) | undefined> {
  const row = await selectPlans(db, projectId).where('tp.short_id', '=', shortId).executeTakeFirst();
  if (!row) return undefined;
  const views = await toViews(db, [row]);
  return { id: row.id, ...views.get(row.id)! };
}

/** The project's test cases among `ids`, with their application; ids of other projects are simply absent. */
export async function findProjectTestCases(
  db: DB,
  projectId: string,
  ids: string[],
): Promise<{ id: string; application_id: string }[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('test_cases')
    .select(['id', 'application_id'])
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
}

/** Creates the plan with its test cases, parameters and notifications in one transaction; returns its short id. */
export async function createTestPlan(
  db: DB,
  projectId: string,
  input: TestPlanWrite & { name: string },
): Promise<string> {
  const shortId = newShortId('testPlan', input.name);
  await db.transaction().execute(async (trx) => {
    const id = newId();
    await trx
      .insertInto('test_plans')
      .values({
        id,
        short_id: shortId,
        project_id: projectId,
        name: input.name,
        description: input.description ?? null,
        owner: input.owner ?? null,
      })
      .execute();
    await writeChildren(trx, id, input);
    if (input.isDefault === undefined) {
      // A project's first plan is its default, so `POST /v1/run` with an empty body has something to run.
      await trx
        .updateTable('projects')
        .set({ default_test_plan_id: id })
        .where('id', '=', projectId)
        .where('default_test_plan_id', 'is', null)
        .execute();
    } else {
      await setDefault(trx, projectId, id, input.isDefault);
    }
  });
  return shortId;
}

export async function updateTestPlan(
  db: DB,
  plan: { id: string; projectId: string },
  patch: TestPlanWrite,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const values = {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.owner !== undefined && { owner: patch.owner }),
    };
    const changesSomething = Object.values(patch).some((v) => v !== undefined);
    if (!changesSomething) return;
    await trx
      .updateTable('test_plans')
      .set({ ...values, updated_at: sql<Date>`now()` })
      .where('id', '=', plan.id)
      .execute();
    await writeChildren(trx, plan.id, patch);
    if (patch.isDefault !== undefined) await setDefault(trx, plan.projectId, plan.id, patch.isDefault);
  });
  forgetRunsOfPlan(plan.id);
}

/** Deletes the plan (its lists go with it) and clears the project's default when it was this plan. */
export async function deleteTestPlan(db: DB, plan: { id: string; projectId: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await setDefault(trx, plan.projectId, plan.id, false);
    await trx.deleteFrom('test_plans').where('id', '=', plan.id).execute();
  });
  forgetRunsOfPlan(plan.id);
}

async function setDefault(trx: Trx, projectId: string, planId: string, isDefault: boolean): Promise<void> {
  if (isDefault) {
    await trx.updateTable('projects').set({ default_test_plan_id: planId }).where('id', '=', projectId).execute();
  } else {
    await trx
      .updateTable('projects')
      .set({ default_test_plan_id: null })
      .where('id', '=', projectId)
      .where('default_test_plan_id', '=', planId)
      .execute();
  }
}

async function writeChildren(trx: Trx, planId: string, write: TestPlanWrite): Promise<void> {
  if (write.testCaseIds !== undefined) {
    await trx.deleteFrom('test_plan_test_cases').where('test_plan_id', '=', planId).execute();
    if (write.testCaseIds.length > 0) {
      await trx
        .insertInto('test_plan_test_cases')
        .values(
          write.testCaseIds.map((testCaseId, position) => ({
            test_plan_id: planId,
            test_case_id: testCaseId,
            position,
          })),
        )
        .execute();
    }
  }
  if (write.applications !== undefined) {
    await trx.deleteFrom('test_plan_applications').where('test_plan_id', '=', planId).execute();
    if (write.applications.length > 0) {
      await trx
        .insertInto('test_plan_applications')
        .values(
          write.applications.map((a) => ({
            test_plan_id: planId,
            application_id: a.applicationId,
            environment_id: a.environmentId,
            device_preset_id: a.devicePresetId,
          })),
        )
        .execute();
    }
  }
  const { email, slack } = write.notifications ?? {};
  if (email !== undefined) {
    await trx
      .deleteFrom('test_plan_notifications')
      .where('test_plan_id', '=', planId)
      .where('channel', '=', 'email')
      .execute();
    // One row per recipient: the notifier sends to each, and "which plans mail this address" stays one query.
    if (email && email.recipients.length > 0) {
      await trx
        .insertInto('test_plan_notifications')
        .values(
          email.recipients.map((recipient) => ({
            id: newId(),
            test_plan_id: planId,
            channel: 'email' as const,
            target: recipient,
            slack_channel: null,
            notify_on: email.notifyOn,
          })),
        )
        .execute();
    }
  }
  if (slack !== undefined) {
    await trx
      .deleteFrom('test_plan_notifications')
      .where('test_plan_id', '=', planId)
      .where('channel', '=', 'slack')
      .execute();
    if (slack) {
      await trx
        .insertInto('test_plan_notifications')
        .values({
          id: newId(),
          test_plan_id: planId,
          channel: 'slack',
          target: slack.webhookUrl,
          slack_channel: slack.channel,
          notify_on: slack.notifyOn,
        })
        .execute();
    }
  }
}

function selectPlans(db: DB, projectId: string) {
  return db
    .selectFrom('test_plans as tp')
    .innerJoin('projects as p', 'p.id', 'tp.project_id')
    .selectAll('tp')
    .select('p.default_test_plan_id')
    .where('tp.project_id', '=', projectId);
}

type PlanRow = TestPlan & { default_test_plan_id: string | null };

/** Maps plan rows to API shapes, loading their lists with one query per list for all plans at once. */
async function toViews(db: DB, rows: PlanRow[]): Promise<Map<string, TestPlanView>> {
  const views = new Map<string, TestPlanView>();
  if (rows.length === 0) return views;
  for (const row of rows) {
    views.set(row.id, {
      shortId: row.short_id,
      name: row.name,
      description: row.description,
      owner: row.owner,
      isDefault: row.default_test_plan_id === row.id,
      testCases: [],
      applications: [],
      notifications: { email: null, slack: null },
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
  }
  const planIds = rows.map((r) => r.id);

  const [testCases, applications, notifications] = await Promise.all([
    db
      .selectFrom('test_plan_test_cases as ptc')
      .innerJoin('test_cases as tc', 'tc.id', 'ptc.test_case_id')
      .innerJoin('applications as a', 'a.id', 'tc.application_id')
      .select(['ptc.test_plan_id', 'tc.id', 'tc.name', 'a.short_id as application_short_id'])
      .where('ptc.test_plan_id', 'in', planIds)
      .orderBy('ptc.position')
      .execute(),
    db
      .selectFrom('test_plan_applications as pa')
      .innerJoin('applications as a', 'a.id', 'pa.application_id')
      .innerJoin('environments as e', 'e.id', 'pa.environment_id')
      .leftJoin('device_presets as d', 'd.id', 'pa.device_preset_id')
      .select([
        'pa.test_plan_id',
        'a.short_id as application_short_id',
        'e.short_id as environment_short_id',
        'd.short_id as device_preset_short_id',
      ])
      .where('pa.test_plan_id', 'in', planIds)
      .orderBy('a.created_at')
      .orderBy('a.id')
      .execute(),
    db
      .selectFrom('test_plan_notifications')
      .selectAll()
      .where('test_plan_id', 'in', planIds)
      .orderBy('target')
      .execute(),
  ]);

  for (const tc of testCases) {
    views
      .get(tc.test_plan_id)!
      .testCases.push({ id: tc.id, name: tc.name, applicationShortId: tc.application_short_id });
  }
  for (const pa of applications) {
    views.get(pa.test_plan_id)!.applications.push({
      applicationShortId: pa.application_short_id,
      environmentShortId: pa.environment_short_id,
      devicePresetShortId: pa.device_preset_short_id,
    });
  }
  for (const n of notifications) {
    const view = views.get(n.test_plan_id)!.notifications;
    if (n.channel === 'email') {
      view.email ??= { recipients: [], notifyOn: n.notify_on };
      view.email.recipients.push(n.target);
    } else {
      view.slack = { webhookUrl: n.target, channel: n.slack_channel, notifyOn: n.notify_on };
    }
  }
  return views;
}

/** The short id of a plan of the project; undefined when the project has no such plan. */
export async function testPlanShortIdOf(db: DB, projectId: string, planId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('test_plans')
    .select('short_id')
    .where('id', '=', planId)
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row?.short_id;
}

/** The application settings (environment, device preset) a plan gives. */
export async function planApplicationRows(db: DB, planId: string) {
  return db.selectFrom('test_plan_applications').selectAll().where('test_plan_id', '=', planId).execute();
}
