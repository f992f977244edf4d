import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  Checkbox,
  checkThenWrite,
  formPage,
  FormProblems,
  optional,
  Radios,
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
import { assetPath } from '../assets.js';
import { fieldKinds, inapplicableFields, isIntegrationKind, type IntegrationKind } from '../git-integration-kind.js';
import { CreateGitIntegration, UpdateGitIntegration } from '../../schemas/git-integrations.js';
import { sessionActor } from '../../services/audit-log.js';
import {
  createGitIntegration,
  deleteGitIntegration,
  getGitIntegration,
  updateGitIntegration,
  type GitIntegrationView,
} from '../../services/git-integrations.js';

// A project's GitHub/GitLab connection: create, change, delete, validated by the API's schemas and written (and
// audited) by its service. The private key, token and webhook secret are write-only as in the API: their boxes are
// password fields (the key a textarea) that are never filled back in, not even after a refusal, and the view the
// service hands the page only says whether one is stored.

const kinds = [
  ['github-app', 'GitHub, as a GitHub App'],
  ['github-token', 'GitHub, with an access token'],
  ['gitlab', 'GitLab, with a project or group access token'],
] as const;

/** How an existing GitHub integration signs in (its kind, shown as a choice of its own when editing). */
const githubAuths = [
  ['app', 'A GitHub App'],
  ['token', 'An access token'],
] as const;

/** The body without the fields the form left out, so the audit log lists only what was sent. */
const given = <T extends Record<string, unknown>>(body: T): T =>
  Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as T;

function createBody(form: FormBody) {
  const common = { webhookSecret: optional(form.webhookSecret), baseUrl: optional(form.baseUrl) };
  if (form.kind === 'github-app')
    return given({
      provider: 'github',
      auth: 'app',
      appId: form.appId ?? '',
      privateKey: form.privateKey ?? '',
      ...common,
    });
  if (form.kind === 'github-token')
    return given({ provider: 'github', auth: 'token', token: form.token ?? '', ...common });
  return given({ provider: form.kind === 'gitlab' ? 'gitlab' : form.kind, token: form.token ?? '', ...common });
}

function updateBody(form: FormBody, editing: GitIntegrationView) {
  const app = editing.provider === 'github' && form.auth === 'app';
  return given({
    auth: editing.provider === 'github' ? form.auth : undefined,
    appId: app ? optional(form.appId) : undefined,
    privateKey: app ? optional(form.privateKey) : undefined,
    token: app ? undefined : optional(form.token),
    webhookSecret: form.removeWebhookSecret === 'on' ? null : optional(form.webhookSecret),
    baseUrl: optional(form.baseUrl) ?? null,
  });
}

// The union's discriminators are one select in the form.
const fieldOf = (path: string) => (path === 'provider' || path === 'auth' ? 'kind' : path);
const refusable = ['appId', 'privateKey', 'token', 'webhookSecret', 'baseUrl'];

/** The kind the form asks for: the provider select when connecting, the sign-in radios (or GitLab) when editing. */
function kindOf(form: FormBody, editing?: GitIntegrationView): IntegrationKind | undefined {
  if (!editing) return isIntegrationKind(form.kind) ? form.kind : undefined;
  if (editing.provider === 'gitlab') return 'gitlab';
  return (form.auth ?? editing.auth) === 'app' ? 'github-app' : 'github-token';
}

/** A refusal at each box holding a value the chosen kind does not use (git-integration-kind.ts); the stored App ID the edit form shows is not one. */
function misplaced(form: FormBody, editing?: GitIntegrationView): FieldErrors {
  const kind = kindOf(form, editing);
  return kind ? inapplicableFields(form, kind, { appId: editing?.appId ?? undefined }) : {};
}

function IntegrationForm(props: {
  base: string;
  csrf: string;
  form: FormBody;
  errors: FieldErrors;
  editing?: GitIntegrationView;
}) {
  const { form, errors, editing } = props;
  const action = editing ? `${props.base}/git/integrations/${editing.shortId}` : `${props.base}/new/git-integration`;
  const github = !editing || editing.provider === 'github';
  const keep = (what: string, stored: boolean) =>
    editing && stored ? `Leave empty to keep the stored ${what}.` : undefined;
  return (
    <>
      <h1>
        {editing ? `${editing.provider === 'github' ? 'GitHub' : 'GitLab'} integration` : 'Connect GitHub or GitLab'}
      </h1>
      <p>
        Merge-request reviews read changes and post comments through it. Keys, tokens and secrets are write-only: they
        are never shown again.
      </p>
      <FormProblems errors={errors} />
      <form method="post" action={action} data-git-kind={kindOf(form, editing) ?? 'github-app'}>
        <CsrfField token={props.csrf} />
        {editing ? (
          editing.provider === 'github' && (
            <Radios
              legend="GitHub signs in as"
              name="auth"
              errorAt="kind"
              options={githubAuths}
              value={form.auth ?? editing.auth}
              errors={errors}
            />
          )
        ) : (
          <SelectField label="Provider" name="kind" options={kinds} value={form.kind} errors={errors} />
        )}
        {github && (
          <div data-kinds={fieldKinds.appId.join(' ')}>
            <TextField
              label="GitHub App ID"
              name="appId"
              value={form.appId ?? editing?.appId ?? undefined}
              errors={errors}
              hint="GitHub App only: the numeric App ID or the Client ID (Iv…)"
            />
          </div>
        )}
        {github && (
          <div data-kinds={fieldKinds.privateKey.join(' ')}>
            <TextField
              label="GitHub App private key"
              name="privateKey"
              type="password"
              multiline
              errors={errors}
              hint={keep('key', editing?.hasPrivateKey ?? false) ?? 'GitHub App only: the whole .pem file'}
            />
          </div>
        )}
        <div data-kinds={fieldKinds.token.join(' ')}>
          <TextField
            label="Access token"
            name="token"
            type="password"
            errors={errors}
            hint={keep('token', editing?.hasToken ?? false) ?? (github ? 'Token sign-in and GitLab' : undefined)}
          />
        </div>
        <TextField
          label="Webhook secret"
          name="webhookSecret"
          type="password"
          errors={errors}
          hint={keep('secret', editing?.hasWebhookSecret ?? false) ?? 'Optional'}
        />
        {editing?.hasWebhookSecret && (
          <Checkbox name="removeWebhookSecret" form={form}>
            Remove the webhook secret
          </Checkbox>
        )}
        <TextField
          label="Server URL"
          name="baseUrl"
          type="url"
          value={form.baseUrl ?? editing?.baseUrl ?? undefined}
          errors={errors}
          hint="Empty: github.com or gitlab.com. GitHub Enterprise: https://HOST/api/v3"
        />
        <SubmitOrCancel text={editing ? 'Save the integration' : 'Connect'} cancel={`${props.base}/git`} />
      </form>
      <script src={`${props.base}${assetPath.gitKind}`} defer></script>
    </>
  );
}

export function registerGitIntegrationForms(web: Hono<WebEnv>, base: string): void {
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  const actor = (c: Context<WebEnv>) => sessionActor(c.get('session').tokenId);
  const load = (c: Context<WebEnv>) =>
    notFoundAsUndefined(() => getGitIntegration(c.get('services'), projectId(c), c.req.param('integration') ?? ''));
  const integrationRoutes = routesAbout(web, load, 'This Git integration');
  const show = (c: Context<WebEnv>, form: FormBody, errors: FieldErrors, editing?: GitIntegrationView) =>
    formPage(
      c,
      { title: editing ? 'Git integration' : 'Connect GitHub or GitLab', nav: 'git' },
      <IntegrationForm base={base} csrf={c.get('csrfToken')} form={form} errors={errors} editing={editing} />,
      errors,
    );

  web.get('/new/git-integration', (c) => show(c, {}, {}));

  web.post('/new/git-integration', async (c) => {
    const form = await readForm(c);
    const wrong = misplaced(form);
    if (Object.keys(wrong).length > 0) return show(c, form, wrong);
    const written = await checkThenWrite(
      CreateGitIntegration,
      createBody(form),
      (body) =>
        createGitIntegration(
          c.get('services'),
          projectId(c),
          'appId' in body ? { ...body, appId: String(body.appId) } : body,
          actor(c),
        ),
      { at: 'kind', fields: refusable, fieldOf },
    );
    return written.ok ? afterSave(c, form, `${base}/git`) : show(c, form, written.errors);
  });

  integrationRoutes.get('/git/integrations/:integration/edit', (c, integration) => show(c, {}, {}, integration));

  integrationRoutes.post('/git/integrations/:integration', async (c, integration) => {
    const form = await readForm(c);
    const wrong = misplaced(form, integration);
    if (Object.keys(wrong).length > 0) return show(c, form, wrong, integration);
    const written = await checkThenWrite(
      UpdateGitIntegration,
      updateBody(form, integration),
      ({ appId, ...patch }) =>
        updateGitIntegration(
          c.get('services'),
          projectId(c),
          integration.shortId,
          { ...patch, ...(appId !== undefined && { appId: String(appId) }) },
          actor(c),
        ),
      { at: 'kind', fields: refusable, fieldOf },
    );
    return written.ok ? afterSave(c, form, `${base}/git`) : show(c, form, written.errors, integration);
  });

  integrationRoutes.post('/git/integrations/:integration/delete', async (c, integration) => {
    await deleteGitIntegration(c.get('services'), projectId(c), integration.shortId, actor(c));
    return c.redirect(`${base}/git`, 303);
  });
}
