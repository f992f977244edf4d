import type { Context, Hono } from 'hono';
import type { WebEnv } from '../context.js';
import {
  checkThenWrite,
  formPage,
  FormProblems,
  optional,
  PostButton,
  readForm,
  SelectField,
  TextField,
  type FieldErrors,
  type FormBody,
} from '../form-kit.js';
import { CsrfField, notFoundPage } from '../layout.js';
import { assetPath } from '../assets.js';
import { ColumnHeads, When } from '../components.js';
import { CreateBadgeLink } from '../../schemas/badge.js';
import { sessionActor } from '../../services/audit-log.js';
import {
  createBadgeLink,
  listBadgeTokens,
  revokeBadgeToken,
  type BadgeLink,
  type BadgeTokenRow,
} from '../../services/badge-tokens.js';
import { listTestPlans } from '../../services/test-plans.js';
import { notFoundAsUndefined } from '../../domain/errors.js';

// The status badge for a README, made without a terminal: a new badge token (prb_…, which only ever shows a
// badge) in the badge URL and its Markdown, shown once on the answer to the post, as `proctor admin
// create-badge-token` prints it once. The list names the badge tokens that work, never a token, and revokes them.

interface BadgePageProps {
  base: string;
  csrf: string;
  plans: { shortId: string; name: string }[];
  tokens: BadgeTokenRow[];
  form: FormBody;
  errors: FieldErrors;
  link?: BadgeLink;
}

/** A read-only box and its Copy button, which copy.js shows only where the clipboard can be written. */
function CopyBox(props: { id: string; label: string; value: string; copy: string; multiline?: boolean }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea id={props.id} rows={3} readonly>
          {props.value}
        </textarea>
      ) : (
        <input id={props.id} type="text" readonly value={props.value} />
      )}
      <span>
        <button type="button" data-copy={props.id} hidden>
          {props.copy}
        </button>{' '}
        <span id={`${props.id}-copied`} role="status"></span>
      </span>
    </div>
  );
}

function NewLink(props: { base: string; link: BadgeLink }) {
  return (
    <section class="card" aria-labelledby="new-badge">
      <h2 id="new-badge">Your badge URL</h2>
      <p>Copy it now: its token is not shown again. Anyone with the URL sees the badge, nothing else.</p>
      <CopyBox
        id="badge-markdown"
        label="Markdown for a README"
        copy="Copy the Markdown"
        value={props.link.markdown}
        multiline
      />
      <CopyBox id="badge-url" label="Badge URL" copy="Copy the URL" value={props.link.url} />
      <script src={`${props.base}${assetPath.copy}`} defer></script>
    </section>
  );
}

function BadgePage(props: BadgePageProps) {
  const { form, errors } = props;
  const action = `${props.base}/project/badge`;
  return (
    <>
      <h1>Status badge</h1>
      <p>
        <img src={`${props.base}/start/badge.svg`} alt="Status of the project's latest run" />
      </p>
      {props.link && <NewLink base={props.base} link={props.link} />}
      <h2>Make a badge URL</h2>
      <FormProblems errors={errors} />
      <form method="post" action={action}>
        <CsrfField token={props.csrf} />
        <TextField
          label="Token name"
          name="name"
          value={form.name ?? 'README badge'}
          errors={errors}
          required
          hint="Says where the badge is used, so it can be revoked later"
        />
        <SelectField
          label="Runs shown"
          name="testPlanShortId"
          options={[
            ['', "The project's latest run"],
            ...props.plans.map((p) => [p.shortId, `Plan ${p.name}`] as const),
          ]}
          value={form.testPlanShortId ?? ''}
          errors={errors}
        />
        <TextField
          label="Badge label"
          name="label"
          value={form.label ?? 'proctor'}
          errors={errors}
          hint="The badge's left-hand text, up to 64 characters"
        />
        <p>
          <button class="primary" type="submit">
            Make the badge URL
          </button>
        </p>
      </form>
      <h2>Badge tokens</h2>
      {props.tokens.length === 0 ? (
        <p>No badge token yet.</p>
      ) : (
        <table>
          <ColumnHeads names={['Name', 'Starts with', 'Created', 'Last used', 'Change']} />
          <tbody>
            {props.tokens.map((t) => (
              <tr>
                <td>{t.name}</td>
                <td>
                  <code>{t.prefix}…</code>
                </td>
                <td>
                  <When at={t.createdAt.toISOString()} />
                </td>
                <td>{t.lastUsedAt ? <When at={t.lastUsedAt.toISOString()} /> : 'Never'}</td>
                <td>
                  <PostButton
                    action={`${action}/tokens/${t.id}/revoke`}
                    csrf={props.csrf}
                    text="Revoke"
                    about={t.name}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function registerBadgePages(web: Hono<WebEnv>, base: string): void {
  const projectId = (c: Context<WebEnv>) => c.get('session').projectId;
  const show = async (c: Context<WebEnv>, form: FormBody, errors: FieldErrors, link?: BadgeLink) => {
    const db = c.get('services').db;
    const [plans, tokens] = await Promise.all([
      listTestPlans({ db }, projectId(c)),
      listBadgeTokens({ db }, projectId(c)),
    ]);
    // The answer that carries a new token is kept out of every cache.
    if (link) c.header('Cache-Control', 'no-store');
    return formPage(
      c,
      { title: 'Status badge', nav: 'project' },
      <BadgePage
        base={base}
        csrf={c.get('csrfToken')}
        plans={plans}
        tokens={tokens}
        form={form}
        errors={errors}
        link={link}
      />,
      errors,
    );
  };

  web.get('/project/badge', (c) => show(c, {}, {}));

  web.post('/project/badge', async (c) => {
    const form = await readForm(c);
    const { services, session } = { services: c.get('services'), session: c.get('session') };
    const made = await checkThenWrite(
      CreateBadgeLink,
      {
        name: form.name ?? '',
        testPlanShortId: optional(form.testPlanShortId),
        label: form.label?.trim() ? form.label : undefined,
      },
      (data) =>
        createBadgeLink(services, {
          ...data,
          projectId: session.projectId,
          publicUrl: services.publicUrl,
          actor: sessionActor(session.tokenId),
        }),
      { at: 'name', fields: ['testPlanShortId'] },
    );
    // Not a redirect: the token exists only in this answer.
    return made.ok ? show(c, {}, {}, made.data) : show(c, form, made.errors);
  });

  web.post('/project/badge/tokens/:token/revoke', async (c) => {
    const revoked = await notFoundAsUndefined(() =>
      revokeBadgeToken(
        c.get('services'),
        projectId(c),
        c.req.param('token'),
        sessionActor(c.get('session').tokenId),
      ).then(() => true),
    );
    if (!revoked) return notFoundPage(c, 'This badge token');
    return c.redirect(`${base}/project/badge`, 303);
  });
}
