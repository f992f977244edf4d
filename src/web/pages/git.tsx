import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, When } from '../components.js';
import { renderPage } from '../layout.js';
import { PostButton } from '../form-kit.js';
import { listGitIntegrations } from '../../services/git-integrations.js';
import { listMergeRequestReviewSettings } from '../../services/merge-request-reviews.js';
import { gitSyncStatus } from '../../services/git-sync-settings.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { GitSyncSection } from '../git-sync-status.js';

// The project's GitHub/GitLab connections and which repositories get their merge requests reviewed. The views
// come from the services the API uses, which never carry a key, token or webhook secret: only whether one is stored.

const stored = (has: boolean) => (has ? 'stored' : 'none');
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** Edit and delete of one row; the labels name it, since every row has the same two. */
function Actions(props: { base: string; csrf: string; what: string }) {
  return (
    <>
      <a href={`${props.base}/edit`} aria-label={`Edit ${props.what}`}>
        Edit
      </a>{' '}
      <PostButton action={`${props.base}/delete`} csrf={props.csrf} text="Delete" about={props.what} />
    </>
  );
}

export function registerGitPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/git');

  web.get('/git', async (c) => {
    const services = c.get('services');
    const { projectId } = c.get('session');
    const [integrations, settings, sync] = await Promise.all([
      listGitIntegrations(services, projectId),
      listMergeRequestReviewSettings({ db: services.db, publicUrl: services.publicUrl }, projectId),
      // No setting is a page without the section's table, not an error.
      notFoundAsUndefined(() => gitSyncStatus(services, projectId)),
    ]);
    return renderPage(
      c,
      { title: 'Git integrations', nav: 'git' },
      <>
        <h1>Git integrations</h1>
        {integrations.length === 0 ? (
          <p>No GitHub or GitLab integration yet.</p>
        ) : (
          <table>
            <ColumnHeads names={['Provider', 'Short id', 'Signs in with', 'Server', 'Secrets', 'Updated', 'Change']} />
            <tbody>
              {integrations.map((i) => (
                <tr>
                  <td>{i.provider}</td>
                  <td>
                    <code>{i.shortId}</code>
                  </td>
                  <td>{i.auth === 'app' ? `App ${i.appId ?? ''}` : 'access token'}</td>
                  <td>
                    {i.baseUrl ?? <span class="muted">{i.provider === 'github' ? 'github.com' : 'gitlab.com'}</span>}
                  </td>
                  <td>
                    {i.auth === 'app' ? `private key ${stored(i.hasPrivateKey)}` : `token ${stored(i.hasToken)}`},
                    webhook secret {stored(i.hasWebhookSecret)}
                  </td>
                  <td>
                    <When at={i.updatedAt} />
                  </td>
                  <td>
                    <Actions
                      base={`${base}/git/integrations/${i.shortId}`}
                      csrf={c.get('csrfToken')}
                      what={`the ${i.provider} integration`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}

        <p>
          <a href={`${base}/new/git-integration`}>Connect GitHub or GitLab</a>
        </p>

        <h2>Merge-request review settings</h2>
        {settings.length === 0 ? (
          <p>No repository is reviewed.</p>
        ) : (
          settings.map((s) => (
            <section class="card" aria-labelledby={`mr-${s.id}`}>
              <h3 id={`mr-${s.id}`}>
                {s.provider}: {s.repository}
              </h3>
              <dl class="facts">
                <dt>Review automatically</dt>
                <dd>{yesNo(s.autoRun)}</dd>
                <dt>Drafts too</dt>
                <dd>{yesNo(s.includeDrafts)}</dd>
                <dt>Comment when opened</dt>
                <dd>{yesNo(s.commentOnOpen)}</dd>
                <dt>Mention handle</dt>
                <dd>
                  <code>{s.handle}</code>
                </dd>
                <dt>Webhook URL</dt>
                <dd>
                  <code>{s.webhookUrl}</code>
                  {s.webhookId && <span class="muted"> (GitLab hook {s.webhookId})</span>}
                </dd>
                <dt>Environments</dt>
                <dd>
                  {Object.keys(s.environmentMapping).length === 0 ? (
                    'none mapped'
                  ) : (
                    <ul class="plain">
                      {Object.entries(s.environmentMapping).map(([env, app]) => (
                        <li>
                          <code>{env}</code> → <code>{app}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
                {s.reviewContext && (
                  <>
                    <dt>Context for the reviewer</dt>
                    <dd>{s.reviewContext}</dd>
                  </>
                )}
                <dt>Updated</dt>
                <dd>
                  <When at={s.updatedAt} />
                </dd>
              </dl>
              <Actions
                base={`${base}/git/reviews/${s.id}`}
                csrf={c.get('csrfToken')}
                what={`the reviews of ${s.repository}`}
              />
            </section>
          ))
        )}
        <p>
          <a href={`${base}/new/merge-request-review`}>Review a repository's merge requests</a>
        </p>

        <h2>Test cases in Git</h2>
        <GitSyncSection base={base} status={sync} />
      </>,
    );
  });
}
