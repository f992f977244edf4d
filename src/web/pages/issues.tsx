import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, FilterSelect, listPageSize, listWindow, oneOf, Pager, uuidPattern, When } from '../components.js';
import { CsrfField, notFoundPage, renderPage } from '../layout.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { issueStatuses, severities, signalKinds } from '../../domain/quality.js';
import { exportIssue } from '../../services/issue-export.js';
import { getIssue, listProjectIssues, setIssueStatus } from '../../services/issues.js';
import { openIssuesByKind } from '../../services/trends.js';
import { KindBars } from '../trend-charts.js';

// The project's quality issues (console errors, uncaught exceptions, failed requests, accessibility violations),
// deduplicated across runs: filter, open one, change its status, file it in GitHub or GitLab.

const form = async (c: Context<WebEnv>) => (await c.req.parseBody()) as Record<string, string | undefined>;

export function registerIssuePages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/issues');

  web.get('/issues', async (c) => {
    const filter = {
      status: oneOf(c.req.query('status'), issueStatuses),
      kind: oneOf(c.req.query('kind'), signalKinds),
      severity: oneOf(c.req.query('severity'), severities),
    };
    const { page, limit, offset } = listWindow(c.req.query('page'));
    const projectId = c.get('session').projectId;
    const [{ issues, total }, byKind] = await Promise.all([
      listProjectIssues(c.get('services'), projectId, { ...filter, limit, offset }),
      openIssuesByKind(c.get('services'), projectId),
    ]);
    return renderPage(
      c,
      { title: 'Issues', nav: 'issues' },
      <>
        <h1>Issues</h1>
        <p>
          Console errors, uncaught exceptions, failed requests and accessibility violations seen by burn-ins and runs,
          one per problem.
        </p>
        <h2>Open issues by kind</h2>
        <KindBars counts={byKind} base={base} />
        <h2>All issues</h2>
        <form class="filters" method="get" action={`${base}/issues`} role="search" aria-label="Filter issues">
          <FilterSelect label="Status" name="status" any="any" options={issueStatuses} selected={filter.status} />
          <FilterSelect label="Kind" name="kind" any="any" options={signalKinds} selected={filter.kind} />
          <FilterSelect label="Severity" name="severity" any="any" options={severities} selected={filter.severity} />
          <button type="submit">Filter</button>
        </form>
        {issues.length === 0 ? (
          <p>No issues{filter.status || filter.kind || filter.severity ? ' match' : ' yet'}.</p>
        ) : (
          <table>
            <ColumnHeads names={['Issue', 'Kind', 'Severity', 'Status', 'Seen', 'Last seen']} />
            <tbody>
              {issues.map((i) => (
                <tr>
                  <td>
                    <a href={`${base}/issues/${i.id}`}>{i.title}</a>
                  </td>
                  <td>{i.kind}</td>
                  <td>{i.severity}</td>
                  <td>{i.status}</td>
                  <td>{i.occurrences}</td>
                  <td>
                    <When at={i.lastSeenAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager path={`${base}/issues`} query={filter} page={page} pageSize={listPageSize} total={total} />
      </>,
    );
  });

  web.get('/issues/:id', async (c) => {
    const id = c.req.param('id');
    if (!uuidPattern.test(id)) return notFoundPage(c, 'This issue');
    const issue = await notFoundAsUndefined(() =>
      getIssue(c.get('services'), c.get('session').projectId, id.toLowerCase()),
    );
    if (!issue) return notFoundPage(c, 'This issue');
    const csrf = c.get('csrfToken');
    return renderPage(
      c,
      { title: `Issue: ${issue.title}`, nav: 'issues' },
      <>
        <h1>{issue.title}</h1>
        <dl class="facts">
          <dt>Kind</dt>
          <dd>
            {issue.kind}
            {issue.rule ? ` (${issue.rule})` : ''}
          </dd>
          <dt>Severity</dt>
          <dd>{issue.severity}</dd>
          <dt>Status</dt>
          <dd>{issue.status}</dd>
          <dt>Occurrences</dt>
          <dd>{issue.occurrences}</dd>
          <dt>First seen</dt>
          <dd>
            <When at={issue.firstSeenAt} />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <When at={issue.lastSeenAt} />
          </dd>
          <dt>Pages</dt>
          <dd>{issue.pages.join(', ')}</dd>
          <dt>Example</dt>
          <dd>
            <code class="wrap">{issue.sampleUrl}</code>
          </dd>
          <dt>Tests</dt>
          <dd>
            {issue.testCaseIds.map((t) => (
              <a href={`${base}/test-cases/${t}`}>{t} </a>
            ))}
          </dd>
          <dt>Filed</dt>
          <dd>
            {issue.exported ? (
              <a href={issue.exported.url}>{issue.exported.url}</a>
            ) : (
              <span class="muted">not yet</span>
            )}
          </dd>
        </dl>
        <form method="post" action={`${base}/issues/${issue.id}/status`}>
          <CsrfField token={csrf} />
          <label>
            Status
            <select name="status">
              {issueStatuses.map((s) => (
                <option value={s} selected={s === issue.status}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Change status</button>
        </form>
        <h2>File it</h2>
        <form method="post" action={`${base}/issues/${issue.id}/export`}>
          <CsrfField token={csrf} />
          <label>
            Repository
            <input name="repository" type="text" required placeholder="owner/repo" />
          </label>
          <label>
            Provider
            <select name="provider">
              <option value="">the project's integration</option>
              <option value="github">GitHub</option>
              <option value="gitlab">GitLab</option>
            </select>
          </label>
          <button type="submit">File in GitHub or GitLab</button>
        </form>
      </>,
    );
  });

  web.post('/issues/:id/status', async (c) => {
    const status = oneOf((await form(c)).status, issueStatuses);
    if (!status || !uuidPattern.test(c.req.param('id'))) return notFoundPage(c, 'This issue');
    await setIssueStatus(c.get('services'), c.get('session').projectId, c.req.param('id').toLowerCase(), status);
    return c.redirect(`${base}/issues/${c.req.param('id')}`, 303);
  });

  web.post('/issues/:id/export', async (c) => {
    const body = await form(c);
    if (!uuidPattern.test(c.req.param('id'))) return notFoundPage(c, 'This issue');
    const services = c.get('services');
    const repository = (body.repository ?? '').trim().slice(0, 200);
    await exportIssue(services, c.get('session').projectId, c.req.param('id').toLowerCase(), {
      repository,
      provider: oneOf(body.provider, ['github', 'gitlab'] as const),
    });
    return c.redirect(`${base}/issues/${c.req.param('id')}`, 303);
  });
}
