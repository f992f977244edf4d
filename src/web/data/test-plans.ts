// What the dashboard's test-plan pages show: plans with the names behind their ids (test cases, applications,
// environments), their schedules with the next fire times, and notification targets without their secrets.
import type { DB } from '../../db/database.js';
import { listTestPlans, type TestPlanView } from '../../db/queries/test-plans.js';
import type { NotifyOn } from '../../db/schema.js';
import type { Logger } from '../../logger.js';
import { listPlanSchedules, type PlanScheduleView } from '../../services/plan-schedules.js';
import { requireTestPlan } from '../../services/test-plans.js';
import { NotFoundError } from '../../services/errors.js';
import type { TemporalClientProvider } from '../../temporal/client.js';

export interface PlanSummary {
  shortId: string;
  name: string;
  description: string | null;
  isDefault: boolean;
  testCaseCount: number;
  scheduleCount: number;
}

export interface PlanPage {
  plan: Omit<TestPlanView, 'notifications' | 'applications'>;
  applications: { applicationShortId: string; applicationName: string; environmentShortId: string; environmentName: string; environmentUrl: string | null }[];
  schedules: PlanScheduleView[];
  notifications: { email: { recipients: string[]; notifyOn: NotifyOn } | null; slack: { webhookHost: string; channel: string | null; notifyOn: NotifyOn } | null };
}

export async function loadPlanSummaries(db: DB, projectId: string): Promise<PlanSummary[]> {
  const plans = await listTestPlans(db, projectId);
  const counts = await db
    .selectFrom('test_plan_schedules as s')
    .innerJoin('test_plans as p', 'p.id', 's.test_plan_id')
    .select((eb) => ['p.short_id', eb.fn.countAll<string>().as('n')])
    .where('p.project_id', '=', projectId)
    .groupBy('p.short_id')
    .execute();
  const schedules = new Map(counts.map((c) => [c.short_id, Number(c.n)]));
  return plans.map((p) => ({
    shortId: p.shortId,
    name: p.name,
    description: p.description,
    isDefault: p.isDefault,
    testCaseCount: p.testCases.length,
    scheduleCount: schedules.get(p.shortId) ?? 0,
  }));
}

/**
 * A Slack-compatible webhook URL is a credential (whoever has it can post to the channel): the page names its host
 * only.
 */
function webhookHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'webhook';
  }
}

/** The plan page's data; undefined when the project has no such plan. */
export async function loadPlan(deps: { db: DB; temporal: TemporalClientProvider; logger: Logger }, projectId: string, planShortId: string): Promise<PlanPage | undefined> {
  const plan = await requireTestPlan(deps.db, projectId, planShortId).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  });
  if (!plan) return undefined;
  const [environments, schedules] = await Promise.all([
    plan.applications.length === 0
      ? []
      : deps.db
          .selectFrom('environments as e')
          .innerJoin('applications as a', 'a.id', 'e.application_id')
          .select(['e.short_id', 'e.name', 'e.url', 'a.name as application_name'])
          .where('e.project_id', '=', projectId)
          .where(
            'e.short_id',
            'in',
            plan.applications.map((a) => a.environmentShortId),
          )
          .execute(),
    listPlanSchedules(deps, plan.id),
  ]);
  const byEnv = new Map(environments.map((e) => [e.short_id, e]));
  const { id: _id, notifications, applications, ...rest } = plan;
  return {
    plan: rest,
    applications: applications.map((a) => {
      const env = byEnv.get(a.environmentShortId);
      return {
        applicationShortId: a.applicationShortId,
        applicationName: env?.application_name ?? a.applicationShortId,
        environmentShortId: a.environmentShortId,
        environmentName: env?.name ?? a.environmentShortId,
        environmentUrl: env?.url ?? null,
      };
    }),
    schedules,
    notifications: {
      email: notifications.email,
      slack: notifications.slack && { webhookHost: webhookHost(notifications.slack.webhookUrl), channel: notifications.slack.channel, notifyOn: notifications.slack.notifyOn },
    },
  };
}
