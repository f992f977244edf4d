// Test plans as business operations: every reference a plan write names is checked against the caller's project
// and resolved to ids before anything is written. Used by the API and (next) the chat assistant's tools.
import { findEnvironment } from '../db/queries/environments.js';
import { findDevicePresetId, findIdByShortId } from '../db/queries/lookups.js';
import {
  createTestPlan as insertTestPlan,
  deleteTestPlan as deleteTestPlanRows,
  findProjectTestCases,
  updateTestPlan as updateTestPlanRows,
  type PlanApplication,
  type TestPlanWrite,
} from '../db/queries/test-plans.js';
import { getTestPlan, listTestPlans as selectTestPlans, type TestPlanView } from '../db/queries/test-plan-views.js';
import type { NotifyOn } from '../db/schema.js';
import { NotFoundError, UnavailableError } from '../domain/errors.js';
import { deletePlanSchedules } from '../temporal/schedules.js';
import type { ServiceContext } from './context.js';

/** A plan write as a caller names things (short ids, test case ids); an absent field is left as it is. */
export interface TestPlanInput {
  name?: string;
  description?: string | null;
  owner?: string | null;
  isDefault?: boolean;
  testCaseIds?: string[];
  applications?: { applicationShortId: string; environmentShortId: string; devicePresetShortId?: string | null }[];
  notifications?: {
    email?: { recipients: string[]; notifyOn: NotifyOn } | null;
    slack?: { webhookUrl: string; channel?: string; notifyOn: NotifyOn } | null;
  };
}

export type TestPlan = TestPlanView & { id: string };

/** The test plan of the project, or NotFoundError (also when it belongs to another project). */
export async function requireTestPlan(
  { db }: ServiceContext,
  projectId: string,
  testPlanShortId: string,
): Promise<TestPlan> {
  const plan = await getTestPlan(db, projectId, testPlanShortId);
  if (!plan) throw new NotFoundError('Test plan');
  return plan;
}

/** Checks every reference of the input against the project (read only) and maps it to a write. */
export async function resolvePlanReferences(
  { db }: ServiceContext,
  projectId: string,
  input: TestPlanInput,
): Promise<TestPlanWrite> {
  const write: TestPlanWrite = {
    name: input.name,
    description: input.description,
    owner: input.owner,
    isDefault: input.isDefault,
  };

  if (input.testCaseIds !== undefined) {
    const ids = input.testCaseIds.map((id) => id.toLowerCase());
    const found = new Set((await findProjectTestCases(db, projectId, ids)).map((tc) => tc.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw new NotFoundError('Test case', missing);
    write.testCaseIds = ids;
  }

  if (input.applications !== undefined) {
    const applications: PlanApplication[] = [];
    for (const entry of input.applications) {
      const applicationId = await findIdByShortId(db, 'applications', projectId, entry.applicationShortId);
      if (!applicationId) throw new NotFoundError('Application');
      const environment = await findEnvironment(db, projectId, entry.environmentShortId);
      if (!environment || environment.application_id !== applicationId) throw new NotFoundError('Environment');
      let devicePresetId: string | null = null;
      if (entry.devicePresetShortId) {
        devicePresetId = (await findDevicePresetId(db, projectId, entry.devicePresetShortId)) ?? null;
        if (!devicePresetId) throw new NotFoundError('Device preset');
      }
      applications.push({ applicationId, environmentId: environment.id, devicePresetId });
    }
    write.applications = applications;
  }

  if (input.notifications !== undefined) {
    const { email, slack } = input.notifications;
    write.notifications = {
      email: email && { recipients: dedupeRecipients(email.recipients), notifyOn: email.notifyOn },
      slack: slack && { webhookUrl: slack.webhookUrl, channel: slack.channel ?? null, notifyOn: slack.notifyOn },
    };
  }
  return write;
}

function dedupeRecipients(recipients: string[]): string[] {
  const byAddress = new Map<string, string>();
  for (const r of recipients) if (!byAddress.has(r.toLowerCase())) byAddress.set(r.toLowerCase(), r);
  return [...byAddress.values()];
}

/** Creates a plan; empty text is stored as none. */
export async function createTestPlan(
  deps: ServiceContext,
  input: TestPlanInput & { projectId: string; name: string },
): Promise<TestPlan> {
  const write = await resolvePlanReferences(deps, input.projectId, {
    ...input,
    description: input.description || null,
  });
  const shortId = await insertTestPlan(deps.db, input.projectId, { ...write, name: input.name });
  return requireTestPlan(deps, input.projectId, shortId);
}

export async function updateTestPlan(
  deps: ServiceContext,
  input: TestPlanInput & { projectId: string; testPlanShortId: string },
): Promise<TestPlan> {
  const plan = await requireTestPlan(deps, input.projectId, input.testPlanShortId);
  const write = await resolvePlanReferences(deps, input.projectId, {
    ...input,
    ...(input.description !== undefined && { description: input.description || null }),
  });
  await updateTestPlanRows(deps.db, { id: plan.id, projectId: input.projectId }, write);
  return requireTestPlan(deps, input.projectId, plan.shortId);
}

/** The project's test plans, as `GET /test-plans` lists them. */
export const listTestPlans = ({ db }: ServiceContext, projectId: string) => selectTestPlans(db, projectId);

/**
 * Delete a plan of the project: its Temporal Schedules first (the rows would cascade away, but the schedules
 * would keep firing); when they cannot be deleted, nothing is and the caller hears why.
 */
export async function deleteTestPlan(
  deps: ServiceContext<'temporal'>,
  input: { projectId: string; testPlanShortId: string },
): Promise<void> {
  const plan = await requireTestPlan(deps, input.projectId, input.testPlanShortId);
  try {
    await deletePlanSchedules(deps.db, deps.temporal, plan.id);
  } catch (err) {
    throw new UnavailableError(
      `could not delete the plan's schedules: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  await deleteTestPlanRows(deps.db, { id: plan.id, projectId: input.projectId });
}
