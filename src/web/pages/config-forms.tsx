import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  Checkbox,
  checkThenWrite,
  EditAndDelete,
  formPage,
  FormProblems,
  FromField,
  readForm,
  SelectField,
  SubmitOrCancel,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { routesAbout } from '../found.js';
import { CsrfField } from '../layout.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { CreateConfig, UpdateConfig } from '../../schemas/configs.js';
import { createConfig, deleteConfig, requireConfig, updateConfig, type ConfigView } from '../../services/configs.js';

// Configs: create, replace the value, delete. A secret's value is write-only here as in the API: its box is a
// password field, never filled back in (not even after a refusal), and the service never hands it to a page.

const types = [
  ['plain', 'Plain value'],
  ['totp', 'TOTP seed or otpauth:// URI (always secret)'],
] as const;

function ConfigForm(props: { base: string; csrf: string; form: FormBody; errors: FieldErrors; editing?: ConfigView }) {
  const { form, errors, editing } = props;
  const action = editing ? `${props.base}/configs/${editing.shortId}` : `${props.base}/new/config`;
  const secret = editing ? editing.isSecret : form.isSecret === 'on';
  return (
    <div id="config-form">
      <h1>{editing ? `Config ${editing.name}` : 'Add a config'}</h1>
      <p>
        A value the agent may type as <code>{'{{NAME}}'}</code>. A secret value is never shown again, logged or sent to
        the model.
      </p>
      <FormProblems errors={errors} />
      <form method="post" action={action} hx-post={action} hx-target="#config-form" hx-swap="outerHTML">
        <CsrfField token={props.csrf} />
        <FromField form={form} />
        <TextField
          label="Name"
          name="name"
          value={form.name ?? editing?.name}
          errors={errors}
          required
          hint="Letters, digits and underscores, e.g. LOGIN_PASSWORD"
        />
        {/* A secret's box stays a password field whatever happens: what was typed into it is not sent back. */}
        <TextField
          label={editing ? 'New value' : 'Value'}
          name="value"
          type={secret || editing?.type === 'totp' ? 'password' : 'text'}
          value={secret ? undefined : (form.value ?? editing?.value ?? undefined)}
          errors={errors}
          hint={editing?.isSecret ? 'Leave empty to keep the stored secret.' : undefined}
        />
        {!editing && (
          <>
            <Checkbox name="isSecret" form={form}>
              Secret (write-only)
            </Checkbox>
            <SelectField label="Type" name="type" options={types} value={form.type ?? 'plain'} errors={errors} />
          </>
        )}
        <SubmitOrCancel text={editing ? 'Save the config' : 'Add the config'} cancel={`${props.base}/configs`} />
      </form>
    </div>
  );
}

export function registerConfigForms(web: Hono<WebEnv>, base: string): void {
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  const load = (c: Context<WebEnv>) =>
    notFoundAsUndefined(() => requireConfig(c.get('services'), projectId(c), c.req.param('config') ?? ''));
  const configRoutes = routesAbout(web, load, 'This config');
  const show = (c: Context<WebEnv>, form: FormBody, errors: FieldErrors, editing?: ConfigView) =>
    formPage(
      c,
      { title: editing ? `Config ${editing.name}` : 'Add a config', nav: 'configs' },
      <ConfigForm base={base} csrf={c.get('csrfToken')} form={form} errors={errors} editing={editing} />,
      errors,
    );

  web.get('/new/config', (c) => show(c, { from: c.req.query('from') ?? '' }, {}));

  web.post('/new/config', async (c) => {
    const form = await readForm(c);
    const written = await checkThenWrite(
      CreateConfig,
      { name: form.name, value: form.value ?? '', isSecret: form.isSecret === 'on', type: form.type },
      (data) => createConfig(c.get('services'), projectId(c), data),
      { at: 'name', fields: ['name', 'value'] },
    );
    return written.ok ? afterSave(c, form, `${base}/configs`) : show(c, form, written.errors);
  });

  configRoutes.get('/configs/:config/edit', (c, config) => show(c, {}, {}, config));

  configRoutes.post('/configs/:config', async (c, config) => {
    const form = await readForm(c);
    // An empty box for a secret keeps it; a plain config's box is its value, empty or not.
    const value = config.isSecret && !form.value ? undefined : (form.value ?? '');
    const written = await checkThenWrite(
      UpdateConfig,
      { name: form.name, value },
      (data) => updateConfig(c.get('services'), projectId(c), config.shortId, data),
      { at: 'name', fields: ['name', 'value'] },
    );
    return written.ok ? afterSave(c, form, `${base}/configs`) : show(c, form, written.errors, config);
  });

  configRoutes.post('/configs/:config/delete', async (c, config) => {
    await deleteConfig(c.get('services'), projectId(c), config.shortId);
    return c.redirect(`${base}/configs`, 303);
  });
}

export function ConfigActions(props: { base: string; csrf: string; config: { shortId: string; name: string } }) {
  const root = `${props.base}/configs/${props.config.shortId}`;
  return <EditAndDelete root={root} csrf={props.csrf} edit="Change" />;
}
