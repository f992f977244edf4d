// Test plans as the API shows them: a plan row with its test cases, applications and notifications, loaded for
// many plans at once (one query per list). Kept apart from test-plans.ts, which writes plans and their lists.
import type { DB } from '../database.js';
import type { NotifyOn, TestPlan } from '../schema.js';

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
