import type { Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  check,
  FromField,
  FormProblems,
  formPage,
  optional,
  readForm,
  refusedAt,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField, notFoundPage } from '../layout.js';
import { CreateApplication } from '../../schemas/applications.js';
import { CreateEnvironment, UpdateEnvironment } from '../../schemas/environments.js';
import { createApplication, removeApplication, requireApplication } from '../../services/applications.js';
import {
  createEnvironment,
  deleteEnvironment,
  getEnvironment,
  updateEnvironment,
  type EnvironmentView,
} from '../../services/environments.js';
import { NotFoundError } from '../../domain/errors.js';
import { AccessLists, accessListField, accessListsBody, atAccessList } from '../environment-access-fields.js';

// Applications and their environments: create (an application with its first environment in one form), add,
// edit and delete. Validation is the API's (schemas/applications.ts, schemas/environments.ts) and the writes are
// its services'. A basic-auth password is write-only: the edit form never shows it, and an empty box keeps it.
// Extra headers and cookies are rows of the environment form (environment-access-fields.tsx).

/** The form's environment fields as the API's body: `name`, `url`, `access.httpCredentials` (one form field each). */
function environmentBody(form: FormBody) {
  const username = optional(form.username);
  const password = optional(form.password);
  const httpCredentials = username ? { username, password } : form.removeCredentials === 'on' ? null : undefined;
  const access = { ...(httpCredentials !== undefined && { httpCredentials }), ...accessListsBody(form) };
  return {
    name: form.environmentName,
    url: optional(form.environmentUrl),
    access: Object.keys(access).length > 0 ? access : undefined,
  };
}

const environmentField: Record<string, string> = {
  name: 'environmentName',
  url: 'environmentUrl',
  'access.httpCredentials.username': 'username',
  'access.httpCredentials.password': 'password',
};
const toEnvironmentField = (path: string) =>
  environmentField[path] ?? accessListField(path) ?? (path.startsWith('access') ? 'username' : path || '');

function EnvironmentFields(props: { form: FormBody; errors: FieldErrors; editing?: EnvironmentView }) {
  const { form, errors } = props;
  const auth = props.editing?.access.httpCredentials;
  return (
    <>
      <TextField
        label="Environment name"
        name="environmentName"
        value={form.environmentName ?? 'Staging'}
        errors={errors}
        required
      />
      <TextField
        label="URL tests start from"
        name="environmentUrl"
        type="url"
        value={form.environmentUrl}
        errors={errors}
        required
        hint="http(s), e.g. https://staging.shop.example.com/login"
      />
      <fieldset>
        <legend>Basic auth (optional)</legend>
        <TextField label="Username" name="username" value={form.username ?? auth?.username} errors={errors} />
        <TextField
          label="Password"
          name="password"
          type="password"
          errors={errors}
          hint={auth?.hasPassword ? 'A password is stored: leave empty to keep it.' : 'Write-only: never shown again.'}
        />
        {auth && (
          <label>
            <input type="checkbox" name="removeCredentials" /> Remove basic auth
          </label>
        )}
      </fieldset>
    </>
  );
}

function NewApplicationForm(props: { base: string; csrf: string; form: FormBody; errors: FieldErrors }) {
  const action = `${props.base}/new/application`;
  return (
    <div id="application-form">
      <h1>Add an application</h1>
      <p>The application under test and the environment its tests run against (its first one is the default).</p>
      <FormProblems errors={props.errors} />
      <form method="post" action={action} hx-post={action} hx-target="#application-form" hx-swap="outerHTML">
        <CsrfField token={props.csrf} />
        <FromField form={props.form} />
        <TextField label="Application name" name="name" value={props.form.name} errors={props.errors} required />
        <EnvironmentFields form={props.form} errors={props.errors} />
        <button class="primary" type="submit">
          Add the application
        </button>
      </form>
    </div>
  );
}

function EnvironmentForm(props: {
  base: string;
  csrf: string;
  app: { shortId: string; name: string };
  form: FormBody;
  errors: FieldErrors;
  editing?: EnvironmentView;
}) {
  const root = `${props.base}/applications/${props.app.shortId}/environments`;
  const action = props.editing ? `${root}/${props.editing.shortId}` : root;
  return (
    <div id="environment-form">
      <h1>
        {props.editing
          ? `Environment ${props.editing.name} of ${props.app.name}`
          : `Add an environment to ${props.app.name}`}
      </h1>
      <FormProblems errors={props.errors} />
      <form method="post" action={action} hx-post={action} hx-target="#environment-form" hx-swap="outerHTML">
        <CsrfField token={props.csrf} />
        <EnvironmentFields form={props.form} errors={props.errors} editing={props.editing} />
        <AccessLists form={props.form} errors={props.errors} stored={props.editing?.access} />
        {!props.editing?.isDefault && (
          <label>
            <input type="checkbox" name="isDefault" checked={props.form.isDefault === 'on'} /> Make it the default
            environment
          </label>
        )}
        <p>
          <button class="primary" type="submit">
            {props.editing ? 'Save the environment' : 'Add the environment'}
          </button>{' '}
          <a href={`${props.base}/applications`}>Cancel</a>
        </p>
      </form>
    </div>
  );
}

export function registerApplicationForms(web: Hono<WebEnv>, base: string): void {
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  const services = (c: Context<WebEnv>) => c.get('services');
  const page = (c: Context<WebEnv>, title: string, content: Child, errors: FieldErrors) =>
    formPage(c, { title, nav: 'applications' }, content, Object.keys(errors).length > 0);

  web.get('/new/application', (c) =>
    page(
      c,
      'Add an application',
      <NewApplicationForm
        base={base}
        csrf={c.get('csrfToken')}
        form={{ from: c.req.query('from') ?? '' }}
        errors={{}}
      />,
      {},
    ),
  );

  web.post('/new/application', async (c) => {
    const form = await readForm(c);
    const again = (errors: FieldErrors) =>
      page(
        c,
        'Add an application',
        <NewApplicationForm base={base} csrf={c.get('csrfToken')} form={form} errors={errors} />,
        errors,
      );
    const app = check(CreateApplication, { name: form.name, kind: 'web' });
    const env = check(CreateEnvironment, environmentBody(form), toEnvironmentField);
    if (!app.ok || !env.ok) return again({ ...(app.ok ? {} : app.errors), ...(env.ok ? {} : env.errors) });
    const created = await createApplication(services(c), projectId(c), app.data);
    const written = await refusedAt('environmentUrl', () =>
      createEnvironment(services(c), { ...env.data, projectId: projectId(c), applicationShortId: created.shortId }),
    );
    if (!written.ok) {
      // Both or neither: an application without the environment the person asked for is not what they submitted.
      await removeApplication(services(c), projectId(c), created.shortId);
      return again(written.errors);
    }
    return afterSave(c, form, `${base}/applications?added=${encodeURIComponent(created.shortId)}`);
  });

  web.get('/applications/:app/environments/new', async (c) => {
    const app = await findApplication(c);
    if (!app) return notFoundPage(c, 'This application');
    return page(
      c,
      'Add an environment',
      <EnvironmentForm base={base} csrf={c.get('csrfToken')} app={app} form={{}} errors={{}} />,
      {},
    );
  });

  web.post('/applications/:app/environments', async (c) => {
    const app = await findApplication(c);
    if (!app) return notFoundPage(c, 'This application');
    const form = await readForm(c);
    const again = (errors: FieldErrors) =>
      page(
        c,
        'Add an environment',
        <EnvironmentForm base={base} csrf={c.get('csrfToken')} app={app} form={form} errors={errors} />,
        errors,
      );
    const env = check(
      CreateEnvironment,
      { ...environmentBody(form), isDefault: form.isDefault === 'on' },
      toEnvironmentField,
    );
    if (!env.ok) return again(env.errors);
    const written = await refusedAt('environmentUrl', () =>
      createEnvironment(services(c), { ...env.data, projectId: projectId(c), applicationShortId: app.shortId }),
    );
    return written.ok ? afterSave(c, form, `${base}/applications`) : again(atAccessList(written.errors));
  });

  web.get('/applications/:app/environments/:env/edit', async (c) => {
    const found = await findEnvironment(c);
    if (!found) return notFoundPage(c, 'This environment');
    const form = { environmentName: found.env.name, environmentUrl: found.env.url ?? '' };
    return page(
      c,
      'Edit an environment',
      <EnvironmentForm
        base={base}
        csrf={c.get('csrfToken')}
        app={found.app}
        form={form}
        errors={{}}
        editing={found.env}
      />,
      {},
    );
  });

  web.post('/applications/:app/environments/:env', async (c) => {
    const found = await findEnvironment(c);
    if (!found) return notFoundPage(c, 'This environment');
    const form = await readForm(c);
    const again = (errors: FieldErrors) =>
      page(
        c,
        'Edit an environment',
        <EnvironmentForm
          base={base}
          csrf={c.get('csrfToken')}
          app={found.app}
          form={form}
          errors={errors}
          editing={found.env}
        />,
        errors,
      );
    const env = check(
      UpdateEnvironment,
      { ...environmentBody(form), isDefault: form.isDefault === 'on' ? true : undefined },
      toEnvironmentField,
    );
    if (!env.ok) return again(env.errors);
    const ref = {
      projectId: projectId(c),
      applicationShortId: found.app.shortId,
      environmentShortId: found.env.shortId,
    };
    const written = await refusedAt('environmentUrl', () => updateEnvironment(services(c), ref, env.data));
    return written.ok ? afterSave(c, form, `${base}/applications`) : again(atAccessList(written.errors));
  });

  web.post('/applications/:app/environments/:env/delete', async (c) => {
    const found = await findEnvironment(c);
    if (!found) return notFoundPage(c, 'This environment');
    await deleteEnvironment(services(c), {
      projectId: projectId(c),
      applicationShortId: found.app.shortId,
      environmentShortId: found.env.shortId,
    });
    return c.redirect(`${base}/applications`, 303);
  });

  web.post('/applications/:app/delete', async (c) => {
    const app = await findApplication(c);
    if (!app) return notFoundPage(c, 'This application');
    await removeApplication(services(c), projectId(c), app.shortId);
    return c.redirect(`${base}/applications`, 303);
  });
}

/** The application of the session's project named in the path; another project's is as absent as a made-up one. */
async function findApplication(c: Context<WebEnv>) {
  return notFoundAsUndefined(() =>
    requireApplication(c.get('services'), c.get('session').projectId, c.req.param('app') ?? ''),
  );
}

async function findEnvironment(c: Context<WebEnv>) {
  const app = await findApplication(c);
  if (!app) return undefined;
  const ref = {
    projectId: c.get('session').projectId,
    applicationShortId: app.shortId,
    environmentShortId: c.req.param('env') ?? '',
  };
  const env = await notFoundAsUndefined(() => getEnvironment(c.get('services'), ref));
  return env && { app, env };
}

export async function notFoundAsUndefined<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** What the applications page offers per application: another environment, or deleting it with its tests. */
export function ApplicationActions(props: { base: string; csrf: string; app: { shortId: string; name: string } }) {
  const root = `${props.base}/applications/${props.app.shortId}`;
  return (
    <p>
      <a href={`${root}/environments/new`}>Add an environment to {props.app.name}</a>{' '}
      <form class="inline" method="post" action={`${root}/delete`}>
        <CsrfField token={props.csrf} />
        <button type="submit">Delete {props.app.name} and its tests</button>
      </form>
    </p>
  );
}

export function EnvironmentActions(props: {
  base: string;
  csrf: string;
  appShortId: string;
  env: { shortId: string; name: string };
}) {
  const root = `${props.base}/applications/${props.appShortId}/environments/${props.env.shortId}`;
  return (
    <>
      {/* Plain words: the row names the environment, and a cell holding its name again would read it twice. */}
      <a href={`${root}/edit`}>Edit</a>{' '}
      <form class="inline" method="post" action={`${root}/delete`}>
        <CsrfField token={props.csrf} />
        <button type="submit">Delete</button>
      </form>
    </>
  );
}
