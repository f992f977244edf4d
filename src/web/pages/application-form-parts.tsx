// The pieces of the application and environment forms (application-forms.tsx has their routes): the environment
// fields and how they become the API's body, the two forms, and the per-row actions the settings page offers.
import {
  Checkbox,
  EditAndDelete,
  FormProblems,
  FromField,
  optional,
  PostButton,
  SubmitOrCancel,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField } from '../layout.js';
import { type EnvironmentView } from '../../services/environments.js';
import { AccessLists, accessListField, accessListsBody } from '../environment-access-fields.js';

/** The form's environment fields as the API's body: `name`, `url`, `access.httpCredentials` (one form field each). */
export function environmentBody(form: FormBody) {
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

export const toEnvironmentField = (path: string) =>
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

export function NewApplicationForm(props: { base: string; csrf: string; form: FormBody; errors: FieldErrors }) {
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

export function EnvironmentForm(props: {
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
          <Checkbox name="isDefault" form={props.form}>
            Make it the default environment
          </Checkbox>
        )}
        <SubmitOrCancel
          text={props.editing ? 'Save the environment' : 'Add the environment'}
          cancel={`${props.base}/applications`}
        />
      </form>
    </div>
  );
}

/** What the applications page offers per application: another environment, or deleting it with its tests. */
export function ApplicationActions(props: { base: string; csrf: string; app: { shortId: string; name: string } }) {
  const root = `${props.base}/applications/${props.app.shortId}`;
  return (
    <p>
      <a href={`${root}/coverage`}>Coverage and discovery of {props.app.name}</a>{' '}
      <a href={`${root}/environments/new`}>Add an environment to {props.app.name}</a>{' '}
      <PostButton action={`${root}/delete`} csrf={props.csrf} text={`Delete ${props.app.name} and its tests`} />
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
  // Plain words: the row names the environment, and a cell holding its name again would read it twice.
  return <EditAndDelete root={root} csrf={props.csrf} />;
}
