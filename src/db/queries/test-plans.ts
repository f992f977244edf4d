// Writing test plans: a plan and its lists (test cases, applications, notifications) in one transaction, and
// which plan is the project's default. Reading them as the API shows them is test-plan-views.ts.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../database.js';
import type { Database } from '../schema.js';
import { newId, newShortId } from '../../ids.js';
import { forgetRunsOfPlan } from './runs.js';
import type { EmailNotification, SlackNotification } from './test-plan-views.js';

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
