import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  checkThenWrite,
  FieldGroup,
  formPage,
  FormProblems,
  optional,
  readForm,
  SelectField,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField } from '../layout.js';
import { CreateTestCase } from '../../schemas/test-cases.js';
import { listApplications, type ApplicationView } from '../../services/applications.js';
import { listConfigs, type ConfigView } from '../../services/configs.js';
import { createTestCase } from '../../services/test-cases.js';

// A test case from a goal: the form posts what `POST /v1/test-cases` takes, through the same schema and service,
// which writes the test (disabled, GENERATING) and starts its burn-in; the person lands on the test case's page,
// where the burn-in's status updates by itself and "Enable" puts it into plans once it COMPLETED.

/** Checkbox names of the configs a test may use: one field per config (Hono keeps one value per name). */
const configField = (shortId: string) => `config.${shortId}`;

function TestCaseForm(props: {
  base: string;
  csrf: string;
  apps: ApplicationView[];
  configs: ConfigView[];
  form: FormBody;
  errors: FieldErrors;
}) {
  const { form, errors } = props;
  const action = `${props.base}/new/test-case`;
  return (
    <div id="test-case-form">
      <h1>Write a test from a goal</h1>
      <p>
        Describe what a user does and how to tell it worked. The agent drives a browser on the application's default
        environment and records the steps (the burn-in).
      </p>
      <FormProblems errors={errors} />
      {props.apps.length === 0 ? (
        <p>
          First <a href={`${props.base}/new/application`}>add an application</a>: a test runs against one.
        </p>
      ) : (
        <form method="post" action={action} hx-post={action} hx-target="#test-case-form" hx-swap="outerHTML">
          <CsrfField token={props.csrf} />
          <SelectField
            label="Application"
            name="applicationShortId"
            options={props.apps.map((a) => [a.shortId, a.name] as const)}
            value={form.applicationShortId}
            errors={errors}
          />
          <TextField label="Name" name="name" value={form.name} errors={errors} required />
          <TextField
            label="Goal"
            name="goal"
            value={form.goal}
            errors={errors}
            required
            multiline
            hint="e.g. Sign in and add the coffee mug to the cart"
          />
          <TextField
            label="Expected result"
            name="expectedResult"
            value={form.expectedResult}
            errors={errors}
            multiline
            hint="Optional: what shows that the goal was reached"
          />
          {props.configs.length > 0 && (
            <FieldGroup legend="Configs the test may type" name="configShortIds" errors={errors}>
              {props.configs.map((cfg) => (
                <label>
                  <input
                    type="checkbox"
                    name={configField(cfg.shortId)}
                    checked={form[configField(cfg.shortId)] === 'on'}
                  />{' '}
                  <code>{`{{${cfg.name}}}`}</code>
                  {cfg.isSecret ? ' (secret)' : ''}{' '}
                </label>
              ))}
            </FieldGroup>
          )}
          <p>
            <button class="primary" type="submit">
              Create and start the burn-in
            </button>
          </p>
        </form>
      )}
    </div>
  );
}

export function registerTestCaseForms(web: Hono<WebEnv>, base: string): void {
  const show = async (c: Context<WebEnv>, form: FormBody, errors: FieldErrors) => {
    const { projectId } = c.get('session');
    const [apps, configs] = await Promise.all([
      listApplications(c.get('services'), projectId),
      listConfigs(c.get('services'), projectId),
    ]);
    const content = (
      <TestCaseForm base={base} csrf={c.get('csrfToken')} apps={apps} configs={configs} form={form} errors={errors} />
    );
    return formPage(c, { title: 'Write a test', nav: 'test-cases' }, content, errors);
  };

  web.get('/new/test-case', (c) => show(c, { applicationShortId: c.req.query('application') ?? '' }, {}));

  web.post('/new/test-case', async (c) => {
    const form = await readForm(c);
    const configShortIds = Object.keys(form)
      .filter((k) => k.startsWith('config.') && form[k] === 'on')
      .map((k) => k.slice('config.'.length));
    const body = {
      name: form.name,
      goal: form.goal,
      applicationShortId: form.applicationShortId,
      expectedResult: optional(form.expectedResult),
      configShortIds,
    };
    const { db, temporal, logger } = c.get('services');
    const created = await checkThenWrite(
      CreateTestCase,
      body,
      (testCase) =>
        createTestCase(
          { db, temporal, logger: c.get('logger') ?? logger },
          { ...testCase, projectId: c.get('session').projectId },
        ),
      {
        at: '',
        fields: ['applicationShortId', 'configShortIds'],
        fieldOf: (path) => (path.startsWith('configShortIds') ? 'configShortIds' : path),
      },
    );
    return created.ok ? afterSave(c, form, `${base}/test-cases/${created.data.id}`) : show(c, form, created.errors);
  });
}
