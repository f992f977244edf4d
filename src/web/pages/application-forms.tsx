import type { Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  check,
  checkThenWrite,
  formPage,
  readForm,
  refusedAt,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { routesAbout } from '../found.js';
import { CreateApplication } from '../../schemas/applications.js';
import { CreateEnvironment, UpdateEnvironment } from '../../schemas/environments.js';
import { createApplication, removeApplication, requireApplication } from '../../services/applications.js';
import {
  createEnvironment,
  deleteEnvironment,
  getEnvironment,
  updateEnvironment,
} from '../../services/environments.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { atAccessList } from '../environment-access-fields.js';
import { environmentBody, EnvironmentForm, NewApplicationForm, toEnvironmentField } from './application-form-parts.js';

// Applications and their environments: create (an application with its first environment in one form), add,
// edit and delete. Validation is the API's (schemas/applications.ts, schemas/environments.ts) and the writes are
// its services'. A basic-auth password is write-only: the edit form never shows it, and an empty box keeps it.
// Extra headers and cookies are rows of the environment form (environment-access-fields.tsx).

export function registerApplicationForms(web: Hono<WebEnv>, base: string): void {
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  const services = (c: Context<WebEnv>) => c.get('services');
  const page = (c: Context<WebEnv>, title: string, content: Child, errors: FieldErrors) =>
    formPage(c, { title, nav: 'applications' }, content, errors);
  // Each form is shown by its GET, and again with what was typed and its problems when its POST is refused.
  const newApplicationPage = (c: Context<WebEnv>, form: FormBody, errors: FieldErrors) =>
    page(
      c,
      'Add an application',
      <NewApplicationForm base={base} csrf={c.get('csrfToken')} form={form} errors={errors} />,
      errors,
    );
  const newEnvironmentPage = (
    c: Context<WebEnv>,
    app: { shortId: string; name: string },
    form: FormBody,
    errors: FieldErrors,
  ) =>
    page(
      c,
      'Add an environment',
      <EnvironmentForm base={base} csrf={c.get('csrfToken')} app={app} form={form} errors={errors} />,
      errors,
    );
  const editEnvironmentPage = (c: Context<WebEnv>, found: FoundEnvironment, form: FormBody, errors: FieldErrors) =>
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
  const environmentRef = (c: Context<WebEnv>, found: FoundEnvironment) => ({
    projectId: projectId(c),
    applicationShortId: found.app.shortId,
    environmentShortId: found.env.shortId,
  });
  const applicationRoutes = routesAbout(web, findApplication, 'This application');
  const environmentRoutes = routesAbout(web, findEnvironment, 'This environment');

  web.get('/new/application', (c) => newApplicationPage(c, { from: c.req.query('from') ?? '' }, {}));

  web.post('/new/application', async (c) => {
    const form = await readForm(c);
    const again = (errors: FieldErrors) => newApplicationPage(c, form, errors);
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

  applicationRoutes.get('/applications/:app/environments/new', async (c, app) => newEnvironmentPage(c, app, {}, {}));

  applicationRoutes.post('/applications/:app/environments', async (c, app) => {
    const form = await readForm(c);
    const again = (errors: FieldErrors) => newEnvironmentPage(c, app, form, errors);
    const written = await checkThenWrite(
      CreateEnvironment,
      { ...environmentBody(form), isDefault: form.isDefault === 'on' },
      (env) => createEnvironment(services(c), { ...env, projectId: projectId(c), applicationShortId: app.shortId }),
      { at: 'environmentUrl', fieldOf: toEnvironmentField },
    );
    return written.ok ? afterSave(c, form, `${base}/applications`) : again(atAccessList(written.errors));
  });

  environmentRoutes.get('/applications/:app/environments/:env/edit', async (c, found) =>
    editEnvironmentPage(c, found, { environmentName: found.env.name, environmentUrl: found.env.url ?? '' }, {}),
  );

  environmentRoutes.post('/applications/:app/environments/:env', async (c, found) => {
    const form = await readForm(c);
    const again = (errors: FieldErrors) => editEnvironmentPage(c, found, form, errors);
    const written = await checkThenWrite(
      UpdateEnvironment,
      { ...environmentBody(form), isDefault: form.isDefault === 'on' ? true : undefined },
      (env) => updateEnvironment(services(c), environmentRef(c, found), env),
      { at: 'environmentUrl', fieldOf: toEnvironmentField },
    );
    return written.ok ? afterSave(c, form, `${base}/applications`) : again(atAccessList(written.errors));
  });

  environmentRoutes.post('/applications/:app/environments/:env/delete', async (c, found) => {
    await deleteEnvironment(services(c), environmentRef(c, found));
    return c.redirect(`${base}/applications`, 303);
  });

  applicationRoutes.post('/applications/:app/delete', async (c, app) => {
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

type FoundEnvironment = NonNullable<Awaited<ReturnType<typeof findEnvironment>>>;

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
