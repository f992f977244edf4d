import type { Context, Hono } from 'hono';
import { uuidPattern } from '../components.js';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  check,
  Checkbox,
  formPage,
  FormProblems,
  readForm,
  refusedAt,
  SelectField,
  SubmitOrCancel,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { routesAbout } from '../found.js';
import { CsrfField } from '../layout.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { SaveMergeRequestReviewSettings } from '../../schemas/merge-request-review-settings.js';
import {
  deleteMergeRequestReviewSettings,
  getMergeRequestReviewSettings,
  saveMergeRequestReviewSettings,
  type MergeRequestReviewSettingsView,
} from '../../services/merge-request-reviews.js';

// Which repositories get their merge requests reviewed, and how: the API's SaveMergeRequestReviewSettings and its
// service (which, for GitLab, creates or refreshes the project hook on every save). A repository is keyed by its
// provider and path, so the edit form shows them and saves the rest.

/** `preview = app_…` per line, as the API's `environmentMapping`; a line without `=` stays text for the schema to refuse. */
function mappingOf(text: string | undefined): Record<string, string> | string {
  const mapping: Record<string, string> = {};
  for (const line of (text ?? '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)) {
    const at = line.indexOf('=');
    if (at < 0) return line;
    mapping[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return mapping;
}

const mappingText = (mapping: Record<string, string>) =>
  Object.entries(mapping)
    .map(([env, app]) => `${env} = ${app}`)
    .join('\n');

function bodyOf(form: FormBody, editing?: MergeRequestReviewSettingsView) {
  return {
    provider: editing?.provider ?? form.provider,
    repository: editing?.repository ?? form.repository ?? '',
    reviewContext: form.reviewContext?.trim() ? form.reviewContext : null,
    autoRun: form.autoRun === 'on',
    includeDrafts: form.includeDrafts === 'on',
    commentOnOpen: form.commentOnOpen === 'on',
    environmentMapping: mappingOf(form.environmentMapping),
    handle: form.handle?.trim() ? form.handle : undefined,
  };
}

function formOf(s: MergeRequestReviewSettingsView): FormBody {
  const on = (flag: boolean) => (flag ? 'on' : '');
  return {
    reviewContext: s.reviewContext ?? '',
    autoRun: on(s.autoRun),
    includeDrafts: on(s.includeDrafts),
    commentOnOpen: on(s.commentOnOpen),
    environmentMapping: mappingText(s.environmentMapping),
    handle: s.handle,
  };
}

// A mapping's issue is about one of its entries (`environmentMapping.preview`): the box holds them all.
const fieldOf = (path: string) => path.split('.')[0]!;

const providers = [
  ['github', 'GitHub'],
  ['gitlab', 'GitLab (saving creates the project hook)'],
] as const;

function ReviewForm(props: {
  base: string;
  csrf: string;
  form: FormBody;
  errors: FieldErrors;
  editing?: MergeRequestReviewSettingsView;
  notice?: string;
}) {
  const { form, errors, editing } = props;
  const action = editing ? `${props.base}/git/reviews/${editing.id}` : `${props.base}/new/merge-request-review`;
  return (
    <>
      <h1>{editing ? `Reviews of ${editing.repository}` : "Review a repository's merge requests"}</h1>
      {props.notice && (
        <p class="error" role="status">
          {props.notice}
        </p>
      )}
      <FormProblems errors={errors} />
      <form method="post" action={action}>
        <CsrfField token={props.csrf} />
        {editing ? (
          <p>
            {editing.provider === 'github' ? 'GitHub' : 'GitLab'} repository <code>{editing.repository}</code>; events
            are delivered to <code>{editing.webhookUrl}</code>.
          </p>
        ) : (
          <>
            <SelectField
              label="Provider"
              name="provider"
              options={providers}
              value={form.provider ?? 'github'}
              errors={errors}
            />
            <TextField
              label="Repository"
              name="repository"
              value={form.repository}
              errors={errors}
              required
              hint="owner/name on GitHub, group/project on GitLab"
            />
          </>
        )}
        <Checkbox name="autoRun" form={form}>
          Review automatically once the head commit is deployed
        </Checkbox>
        <Checkbox name="includeDrafts" form={form}>
          Review drafts too
        </Checkbox>
        <Checkbox name="commentOnOpen" form={form}>
          Comment when a merge request opens, saying how to start a review
        </Checkbox>
        <TextField
          label="Mention handle"
          name="handle"
          value={form.handle}
          errors={errors}
          hint="A comment mentioning it with a URL starts a review there. Default @proctor"
        />
        <TextField
          label="Environments"
          name="environmentMapping"
          value={form.environmentMapping}
          errors={errors}
          multiline
          hint="One per line: the provider's environment name = the application's short id (preview = app_…). Empty: any deployment of the commit"
        />
        <TextField
          label="Context for the reviewer"
          name="reviewContext"
          value={form.reviewContext}
          errors={errors}
          multiline
        />
        <SubmitOrCancel text={editing ? 'Save the review settings' : 'Start reviewing'} cancel={`${props.base}/git`} />
      </form>
    </>
  );
}

/**
 * Where the service's refusal belongs: an application of the mapping not in the project, no GitLab integration to
 * create the hook with (or GitLab refusing it), else the repository (another project's, say).
 */
function refusedField(message: string, editing: MergeRequestReviewSettingsView | undefined): string {
  if (message.startsWith('Application not found')) return 'environmentMapping';
  if (/integration|GitLab/.test(message)) return editing ? '' : 'provider';
  return editing ? '' : 'repository';
}

export function registerMergeRequestReviewForms(web: Hono<WebEnv>, base: string): void {
  const services = (c: Context<WebEnv>) => c.get('services');
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  // The id is a uuid column: anything else is not found rather than a database error.
  const load = async (c: Context<WebEnv>) => {
    const id = c.req.param('settings') ?? '';
    return uuidPattern.test(id)
      ? notFoundAsUndefined(() => getMergeRequestReviewSettings(services(c), projectId(c), id))
      : undefined;
  };
  const settingsRoutes = routesAbout(web, load, 'These review settings');
  const show = (
    c: Context<WebEnv>,
    form: FormBody,
    errors: FieldErrors,
    editing?: MergeRequestReviewSettingsView,
    notice?: string,
  ) =>
    formPage(
      c,
      { title: editing ? `Reviews of ${editing.repository}` : 'Review a repository', nav: 'git' },
      <ReviewForm
        base={base}
        csrf={c.get('csrfToken')}
        form={form}
        errors={errors}
        editing={editing}
        notice={notice}
      />,
      errors,
    );
  const save = async (c: Context<WebEnv>, editing?: MergeRequestReviewSettingsView) => {
    const form = await readForm(c);
    const input = check(SaveMergeRequestReviewSettings, bodyOf(form, editing), fieldOf);
    if (!input.ok) return show(c, form, input.errors, editing);
    const written = await refusedAt('', () => saveMergeRequestReviewSettings(services(c), projectId(c), input.data));
    if (!written.ok)
      return show(c, form, { [refusedField(written.errors[''] ?? '', editing)]: written.errors[''] ?? '' }, editing);
    // GitLab could not be reached for the hook: saved, and the edit page says to save again.
    if (written.data.webhookProblem) return c.redirect(`${base}/git/reviews/${written.data.id}/edit?hook=failed`, 303);
    return afterSave(c, form, `${base}/git`);
  };

  web.get('/new/merge-request-review', (c) => show(c, { autoRun: 'on', handle: '@proctor' }, {}));
  web.post('/new/merge-request-review', (c) => save(c));

  settingsRoutes.get('/git/reviews/:settings/edit', async (c, settings) => {
    const notice =
      c.req.query('hook') === 'failed'
        ? 'Saved, but GitLab could not be reached to create the project hook: save again.'
        : undefined;
    return show(c, formOf(settings), {}, settings, notice);
  });

  settingsRoutes.post('/git/reviews/:settings', (c, settings) => save(c, settings));

  settingsRoutes.post('/git/reviews/:settings/delete', async (c, settings) => {
    await deleteMergeRequestReviewSettings(c.get('services'), projectId(c), settings.id);
    return c.redirect(`${base}/git`, 303);
  });
}
