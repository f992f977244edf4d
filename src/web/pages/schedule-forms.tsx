import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  checkThenWrite,
  formPage,
  FormProblems,
  optional,
  readForm,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField, notFoundPage } from '../layout.js';
import { routesAbout } from '../found.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { CreatePlanSchedule } from '../../schemas/plan-schedules.js';
import { createSchedule, deleteSchedule } from '../../services/plan-schedules.js';
import { requireTestPlan } from '../../services/test-plans.js';
import { uuidPattern } from '../components.js';

// A plan's cron schedules: add one (the API's CreatePlanSchedule schema, then Temporal's own verdict through the
// service: a cron it refuses or one that never fires is shown at the field) and delete one.

/** The add-a-schedule form; on the plan's page, and alone with its errors after a refused post. */
export function ScheduleForm(props: {
  base: string;
  csrf: string;
  planShortId: string;
  form: FormBody;
  errors: FieldErrors;
}) {
  const action = `${props.base}/test-plans/${props.planShortId}/schedules`;
  return (
    <div id="schedule-form">
      <FormProblems errors={props.errors} />
      <form method="post" action={action} hx-post={action} hx-target="#schedule-form" hx-swap="outerHTML">
        <CsrfField token={props.csrf} />
        <TextField
          label="Cron (UTC)"
          name="cron"
          value={props.form.cron}
          errors={props.errors}
          required
          hint="e.g. 0 6 * * 1-5 (weekdays at 06:00), @daily"
        />
        <TextField
          label="Schedule description"
          name="description"
          value={props.form.description}
          errors={props.errors}
        />
        <button type="submit">Add the schedule</button>
      </form>
    </div>
  );
}

export function DeleteScheduleButton(props: {
  base: string;
  csrf: string;
  planShortId: string;
  schedule: { id: string; cron: string };
}) {
  return (
    <form
      class="inline"
      method="post"
      action={`${props.base}/test-plans/${props.planShortId}/schedules/${props.schedule.id}/delete`}
    >
      <CsrfField token={props.csrf} />
      <button type="submit">Delete</button>
    </form>
  );
}

export function registerScheduleForms(web: Hono<WebEnv>, base: string): void {
  const plan = (c: Context<WebEnv>) =>
    notFoundAsUndefined(() =>
      requireTestPlan(c.get('services'), c.get('session').projectId, c.req.param('shortId') ?? ''),
    );
  const planRoutes = routesAbout(web, plan, 'This test plan');

  planRoutes.post('/test-plans/:shortId/schedules', async (c, found) => {
    const form = await readForm(c);
    const again = (errors: FieldErrors) =>
      formPage(
        c,
        { title: `Schedule ${found.name}`, nav: 'test-plans' },
        <>
          <h1>Schedule {found.name}</h1>
          <ScheduleForm base={base} csrf={c.get('csrfToken')} planShortId={found.shortId} form={form} errors={errors} />
        </>,
        errors,
      );
    const services = c.get('services');
    const written = await checkThenWrite(
      CreatePlanSchedule,
      { cron: form.cron ?? '', description: optional(form.description) },
      (schedule) =>
        createSchedule(
          {
            db: services.db,
            temporal: services.temporal,
            logger: c.get('logger'),
            runConcurrency: services.runConcurrency,
          },
          { ...schedule, projectId: c.get('session').projectId, testPlanShortId: found.shortId },
        ),
      { at: 'cron' },
    );
    return written.ok ? afterSave(c, form, `${base}/test-plans/${found.shortId}`) : again(written.errors);
  });

  web.post('/test-plans/:shortId/schedules/:id/delete', async (c) => {
    const found = await plan(c);
    const id = c.req.param('id');
    if (!found || !uuidPattern.test(id)) return notFoundPage(c, 'This schedule');
    await deleteSchedule(c.get('services'), {
      projectId: c.get('session').projectId,
      testPlanShortId: found.shortId,
      scheduleId: id,
    });
    return c.redirect(`${base}/test-plans/${found.shortId}`, 303);
  });
}
