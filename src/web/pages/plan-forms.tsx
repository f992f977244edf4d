import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import { Status } from '../components.js';
import {
  afterSave,
  checkThenWrite,
  FieldGroup,
  formPage,
  FormProblems,
  readForm,
  SelectField,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { routesAbout } from '../found.js';
import { CsrfField } from '../layout.js';
import { CreateTestPlan, UpdateTestPlan } from '../../schemas/test-plans.js';
import { dashboardApplications, dashboardTestCases } from '../../services/dashboard.js';
import { createTestPlan, requireTestPlan, updateTestPlan, type TestPlan } from '../../services/test-plans.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { runTestPlan } from '../../services/runs.js';

// Test plans: create one with its tests, the environment each application runs against and e-mail notifications
// (the API's CreateTestPlan schema and service), and run a plan (the API's `POST /v1/run`).

/** The form's field names: one checkbox per test case, one environment choice per application. */
const testField = (id: string) => `test.${id}`;
const environmentField = (appShortId: string) => `environment.${appShortId}`;

type Apps = Awaited<ReturnType<typeof dashboardApplications>>;
type Tests = Awaited<ReturnType<typeof dashboardTestCases>>['testCases'];

function PlanForm(props: {
  base: string;
  csrf: string;
  apps: Apps;
  tests: Tests;
  form: FormBody;
  errors: FieldErrors;
  editing?: { shortId: string; name: string };
}) {
  const { form, errors, editing } = props;
  const action = editing ? `${props.base}/test-plans/${editing.shortId}/edit` : `${props.base}/new/test-plan`;
  const apps = props.apps.filter((a) => a.environments.length > 0);
  return (
    <div id="plan-form">
      <h1>{editing ? `Edit ${editing.name}` : 'Create a test plan'}</h1>
      <p>
        A plan runs its <strong>enabled</strong> tests (and what they depend on), each against its application's
        environment.
      </p>
      <FormProblems errors={errors} />
      <form method="post" action={action} hx-post={action} hx-target="#plan-form" hx-swap="outerHTML">
        <CsrfField token={props.csrf} />
        <TextField label="Name" name="name" value={form.name} errors={errors} required />
        <FieldGroup legend="Test cases" name="testCaseIds" errors={errors}>
          {props.tests.length === 0 && (
            <p>
              No test cases yet: <a href={`${props.base}/new/test-case`}>write one from a goal</a>.
            </p>
          )}
          {props.tests.map((t) => (
            <label class="field">
              <span>
                <input type="checkbox" name={testField(t.id)} checked={form[testField(t.id)] === 'on'} /> {t.name}{' '}
                <span class="muted">
                  ({t.applicationName}; {t.isEnabled ? 'enabled' : 'disabled: a run leaves it out'}; burn-in{' '}
                  <Status value={t.generationStatus} />)
                </span>
              </span>
            </label>
          ))}
        </FieldGroup>
        {apps.length > 0 && (
          <fieldset>
            <legend>Environment per application</legend>
            {apps.map((a) => (
              <SelectField
                label={a.name}
                name={environmentField(a.shortId)}
                options={[
                  ['', 'Its default environment'],
                  ...a.environments.map((e) => [e.shortId, `${e.name}${e.url ? ` (${e.url})` : ''}`] as const),
                ]}
                value={form[environmentField(a.shortId)]}
                errors={errors}
              />
            ))}
          </fieldset>
        )}
        <TextField
          label="E-mail the result to"
          name="emailRecipients"
          type="text"
          value={form.emailRecipients}
          errors={errors}
          hint="Optional: addresses separated by commas, sent when a run fails"
        />
        <p>
          <button class="primary" type="submit">
            {editing ? 'Save the plan' : 'Create the plan'}
          </button>
        </p>
      </form>
    </div>
  );
}

/** The API's body from the form, and which form field each of its paths is. */
function planBody(form: FormBody, apps: Apps, editing = false) {
  const testCaseIds = Object.keys(form)
    .filter((k) => k.startsWith('test.') && form[k] === 'on')
    .map((k) => k.slice('test.'.length));
  const chosen = apps.filter((a) => form[environmentField(a.shortId)]);
  const applications = chosen.map((a) => ({
    applicationShortId: a.shortId,
    environmentShortId: form[environmentField(a.shortId)]!,
  }));
  const recipients = (form.emailRecipients ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const body = {
    name: form.name,
    testCaseIds,
    applications,
    notifications:
      recipients.length > 0 ? { email: { recipients, notifyOn: 'failure' } } : editing ? { email: null } : undefined,
  };
  const fieldOf = (path: string) => {
    if (path.startsWith('testCaseIds')) return 'testCaseIds';
    if (path.startsWith('notifications')) return 'emailRecipients';
    const app = /^applications\.(\d+)/.exec(path);
    return app ? environmentField(chosen[Number(app[1])]?.shortId ?? '') : path;
  };
  return { body, fieldOf };
}

export function registerPlanForms(web: Hono<WebEnv>, base: string): void {
  const choices = async (c: Context<WebEnv>) => {
    const { projectId } = c.get('session');
    const [apps, tests] = await Promise.all([
      dashboardApplications(c.get('services'), projectId),
      dashboardTestCases(c.get('services'), projectId, {}, { limit: 500, offset: 0 }),
    ]);
    return { apps, tests: tests.testCases };
  };
  const show = (c: Context<WebEnv>, data: { apps: Apps; tests: Tests }, form: FormBody, errors: FieldErrors) =>
    formPage(
      c,
      { title: 'Create a test plan', nav: 'test-plans' },
      <PlanForm base={base} csrf={c.get('csrfToken')} {...data} form={form} errors={errors} />,
      errors,
    );

  web.get('/new/test-plan', async (c) => {
    const data = await choices(c);
    // Coming from a test case ("put it in a plan"), that test is ticked.
    const test = c.req.query('test');
    return show(c, data, test ? { [testField(test)]: 'on' } : {}, {});
  });

  web.post('/new/test-plan', async (c) => {
    const data = await choices(c);
    const form = await readForm(c);
    const { body, fieldOf } = planBody(form, data.apps);
    const written = await checkThenWrite(
      CreateTestPlan,
      body,
      (plan) => createTestPlan({ db: c.get('services').db }, { ...plan, projectId: c.get('session').projectId }),
      { at: '', fieldOf },
    );
    return written.ok
      ? afterSave(c, form, `${base}/test-plans/${written.data.shortId}`)
      : show(c, data, form, written.errors);
  });

  const load = (c: Context<WebEnv>) =>
    notFoundAsUndefined(() =>
      requireTestPlan(c.get('services'), c.get('session').projectId, c.req.param('shortId') ?? ''),
    );
  const planRoutes = routesAbout(web, load, 'This test plan');
  const showEdit = (
    c: Context<WebEnv>,
    plan: TestPlan,
    data: { apps: Apps; tests: Tests },
    form: FormBody,
    errors: FieldErrors,
  ) =>
    formPage(
      c,
      { title: `Edit ${plan.name}`, nav: 'test-plans' },
      <PlanForm base={base} csrf={c.get('csrfToken')} {...data} form={form} errors={errors} editing={plan} />,
      errors,
    );

  planRoutes.get('/test-plans/:shortId/edit', async (c, plan) => {
    const form: FormBody = { name: plan.name, emailRecipients: plan.notifications.email?.recipients.join(', ') ?? '' };
    for (const t of plan.testCases) form[testField(t.id)] = 'on';
    for (const a of plan.applications) form[environmentField(a.applicationShortId)] = a.environmentShortId;
    return showEdit(c, plan, await choices(c), form, {});
  });

  planRoutes.post('/test-plans/:shortId/edit', async (c, plan) => {
    const data = await choices(c);
    const form = await readForm(c);
    const { body, fieldOf } = planBody(form, data.apps, true);
    const written = await checkThenWrite(
      UpdateTestPlan,
      body,
      (changes) =>
        updateTestPlan(
          { db: c.get('services').db },
          { ...changes, projectId: c.get('session').projectId, testPlanShortId: plan.shortId },
        ),
      { at: '', fieldOf },
    );
    return written.ok
      ? afterSave(c, form, `${base}/test-plans/${plan.shortId}`)
      : showEdit(c, plan, data, form, written.errors);
  });

  // "Run this plan": the API's run of a plan, then the run's page, which follows it to its verdict.
  web.post('/test-plans/:shortId/run', async (c) => {
    const run = await runTestPlan(c.get('services'), {
      projectId: c.get('session').projectId,
      testPlanShortId: c.req.param('shortId'),
      meta: { trigger: 'dashboard' },
    });
    return c.redirect(`${base}/runs/${run.shortId}`, 303);
  });
}

/** The button on a plan's page. */
export function RunPlanButton(props: { base: string; csrf: string; shortId: string }) {
  return (
    <form method="post" action={`${props.base}/test-plans/${props.shortId}/run`}>
      <CsrfField token={props.csrf} />
      <button class="primary" type="submit">
        Run this plan
      </button>
    </form>
  );
}
