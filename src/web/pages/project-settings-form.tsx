import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import {
  afterSave,
  check,
  Checkbox,
  formPage,
  FormProblems,
  Radios,
  readForm,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField } from '../layout.js';
import { UpdateProjectSettings } from '../../schemas/project-settings.js';
import { minRuleFlakeRate } from '../../domain/flakiness.js';
import { maxIssueResolveAfterRuns } from '../../domain/quality.js';
import { sessionActor } from '../../services/audit-log.js';
import { getProjectSettings, updateProjectSettings, type ProjectSettings } from '../../services/project-settings.js';

// The project's settings: heal policy, retries, the quarantine rule, when issues resolve and which failing
// requests are no signal, validated by the API's
// UpdateProjectSettings and written (and audited) by its service.

/** A number box as the schema wants it: empty or not a number stays text, for the schema to refuse by name. */
const numberOf = (value: string | undefined): number | string =>
  value !== undefined && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : (value ?? '');

/**
 * The schema words the flake rate as the API takes it, a fraction (0.01 to 1); the box is in percent, so its refusal
 * is said in percent. Only the wording changes: the schema still decides.
 */
function inPercent(errors: FieldErrors): FieldErrors {
  if (!errors.flakeRate) return errors;
  return { ...errors, flakeRate: `must be a percentage from ${minRuleFlakeRate * 100} to 100` };
}

function formOf(settings: ProjectSettings): FormBody {
  return {
    healPolicy: settings.healPolicy,
    retries: String(settings.retries),
    quarantine: settings.quarantine ? 'on' : '',
    flakeRate: settings.quarantine ? String(Math.round(settings.quarantine.flakeRate * 100)) : '30',
    minRuns: settings.quarantine ? String(settings.quarantine.minRuns) : '10',
    issueResolveAfterRuns: String(settings.issueResolveAfterRuns),
    signalIgnoreUrls: settings.signalIgnoreUrls.join('\n'),
  };
}

const healPolicies = [
  ['review', 'Propose the healed steps for review'],
  ['auto', 'Save them as the next steps version at once'],
] as const;

function SettingsForm(props: { base: string; csrf: string; form: FormBody; errors: FieldErrors; saved: boolean }) {
  const { form, errors } = props;
  const action = `${props.base}/project`;
  return (
    <div id="settings-form">
      <h1>Project settings</h1>
      {props.saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <FormProblems errors={errors} />
      <form method="post" action={action} hx-post={action} hx-target="#settings-form" hx-swap="outerHTML">
        <CsrfField token={props.csrf} />
        <Radios
          legend="When a passing run had to heal a locator"
          name="healPolicy"
          options={healPolicies}
          value={form.healPolicy === 'auto' ? 'auto' : 'review'}
          errors={errors}
        />
        <TextField
          label="Retries of a failed test (0 to 3)"
          name="retries"
          value={form.retries}
          errors={errors}
          required
        />
        <fieldset>
          <legend>Quarantine rule</legend>
          <Checkbox name="quarantine" form={form}>
            Quarantine flaky tests automatically
          </Checkbox>
          <TextField label="At a flake rate of (percent)" name="flakeRate" value={form.flakeRate} errors={errors} />
          <TextField
            label="Over at least this many of the last finished runs"
            name="minRuns"
            value={form.minRuns}
            errors={errors}
          />
        </fieldset>
        <fieldset>
          <legend>Issues and quality signals</legend>
          <TextField
            label={`An open issue resolves itself after this many clean runs (1 to ${maxIssueResolveAfterRuns})`}
            name="issueResolveAfterRuns"
            value={form.issueResolveAfterRuns}
            errors={errors}
          />
          <TextField
            label="Request URLs whose failures are not signals"
            name="signalIgnoreUrls"
            value={form.signalIgnoreUrls}
            errors={errors}
            multiline
            hint="One pattern per line: * matches any characters, a pattern without * any URL containing it"
          />
        </fieldset>
        <p>
          <button class="primary" type="submit">
            Save the settings
          </button>
        </p>
      </form>
      <p>
        <a href={`${props.base}/project/badge`}>Status badge for a README</a>
      </p>
    </div>
  );
}

export function registerProjectSettingsForm(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/project');
  const show = (c: Context<WebEnv>, form: FormBody, errors: FieldErrors, saved = false) =>
    formPage(
      c,
      { title: 'Project settings', nav: 'project' },
      <SettingsForm base={base} csrf={c.get('csrfToken')} form={form} errors={errors} saved={saved} />,
      errors,
    );

  web.get('/project', async (c) =>
    show(
      c,
      formOf(await getProjectSettings(c.get('services'), c.get('session').projectId)),
      {},
      c.req.query('saved') === '1',
    ),
  );

  web.post('/project', async (c) => {
    const form = await readForm(c);
    const rate = numberOf(form.flakeRate);
    const body = {
      healPolicy: form.healPolicy,
      retries: numberOf(form.retries),
      quarantine:
        form.quarantine === 'on'
          ? { flakeRate: typeof rate === 'number' ? rate / 100 : rate, minRuns: numberOf(form.minRuns) }
          : null,
      issueResolveAfterRuns: numberOf(form.issueResolveAfterRuns),
      signalIgnoreUrls: (form.signalIgnoreUrls ?? '')
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    };
    // A nested issue is shown at its box: `quarantine.minRuns` at minRuns, `signalIgnoreUrls.2` at the list.
    const input = check(UpdateProjectSettings, body, (path) =>
      path.startsWith('quarantine.') ? path.slice('quarantine.'.length) : path.split('.')[0]!,
    );
    if (!input.ok) return show(c, form, inPercent(input.errors));
    await updateProjectSettings(
      c.get('services'),
      c.get('session').projectId,
      input.data,
      sessionActor(c.get('session').tokenId),
    );
    return afterSave(c, form, `${base}/project?saved=1`);
  });
}
