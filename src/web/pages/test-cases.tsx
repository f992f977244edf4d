import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import {
  ColumnHeads,
  FilterSelect,
  listPageSize,
  listWindow,
  oneOf,
  Pager,
  Status,
  Table,
  uuidPattern,
  When,
} from '../components.js';
import { notFoundPage, renderPage } from '../layout.js';
import { listApplications } from '../../services/applications.js';
import { dashboardTestCases } from '../../services/dashboard.js';
import { acceptHealProposal, HealProposalError, rejectHealProposal } from '../../services/heal-proposals.js';
import { exportTestCaseSpec } from '../../services/test-case-export.js';
import { updateTestCase } from '../../services/test-cases.js';
import { sessionActor } from '../../services/audit-log.js';
import { BurnIn, loadTestCasePage, TestCaseDetail } from './test-case-detail.js';

export function registerTestCasePages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/test-cases');

  web.get('/test-cases', async (c) => {
    const { projectId } = c.get('session');
    const applications = await listApplications(c.get('services'), projectId);
    const query = {
      application: applications.find((a) => a.shortId === c.req.query('application'))?.shortId,
      enabled: oneOf(c.req.query('enabled'), ['yes', 'no'] as const),
      label: c.req.query('label')?.trim() || undefined,
    };
    const { page, limit, offset } = listWindow(c.req.query('page'));
    const { testCases, total } = await dashboardTestCases(
      c.get('services'),
      projectId,
      {
        applicationShortId: query.application,
        isEnabled: query.enabled === undefined ? undefined : query.enabled === 'yes',
        labels: query.label ? [query.label] : undefined,
      },
      { limit, offset },
    );
    return renderPage(
      c,
      { title: 'Test cases', nav: 'test-cases' },
      <>
        <h1>Test cases</h1>
        <p>
          <a href={`${base}/new/test-case`}>Write a test from a goal</a>
        </p>
        <form class="filters" method="get" action={`${base}/test-cases`} role="search" aria-label="Filter test cases">
          <FilterSelect
            label="Application"
            name="application"
            any="All applications"
            options={applications.map((a) => [a.shortId, a.name] as const)}
            selected={query.application}
          />
          <FilterSelect
            label="In plans"
            name="enabled"
            any="Enabled or not"
            options={[
              ['yes', 'Enabled'],
              ['no', 'Disabled'],
            ]}
            selected={query.enabled}
          />
          <label>
            Label
            <input name="label" value={query.label ?? ''} />
          </label>
          <button type="submit">Filter</button>
        </form>
        {testCases.length === 0 ? (
          <p>No test cases match.</p>
        ) : (
          <Table label="Test cases">
            <ColumnHeads names={['Name', 'Application', 'Burn-in', 'In plans', 'Labels', 'Created']} />
            <tbody>
              {testCases.map((t) => (
                <tr>
                  <td>
                    <a href={`${base}/test-cases/${t.id}`}>{t.name}</a>
                  </td>
                  <td>{t.applicationName}</td>
                  <td>
                    <Status value={t.generationStatus} />
                  </td>
                  <td>{t.isEnabled ? 'Enabled' : 'Disabled'}</td>
                  <td>{t.labels.join(', ')}</td>
                  <td>
                    <When at={t.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <Pager path={`${base}/test-cases`} query={query} page={page} pageSize={listPageSize} total={total} />
      </>,
    );
  });

  web.get('/test-cases/:id', async (c) => {
    const data = await loadTestCasePage(c, testCaseId(c));
    if (!data) return notFoundPage(c, 'This test case');
    return renderPage(
      c,
      { title: data.testCase.name, nav: 'test-cases' },
      <TestCaseDetail base={base} csrfToken={c.get('csrfToken')} data={data} />,
    );
  });

  // The burn-in section alone, polled by htmx while the agent is still recording.
  web.get('/test-cases/:id/burn-in', async (c) => {
    const data = await loadTestCasePage(c, testCaseId(c));
    if (!data) return c.text('Test case not found', 404);
    return c.html(<BurnIn base={base} data={data} />);
  });

  web.post('/test-cases/:id/enabled', async (c) => {
    const id = testCaseId(c);
    if (!id) return notFoundPage(c, 'This test case');
    const form = await c.req.parseBody();
    await updateTestCase(c.get('services'), {
      projectId: c.get('session').projectId,
      testCaseId: id,
      isEnabled: form.enabled === 'true',
      actor: sessionActor(c.get('session').tokenId),
    });
    return c.redirect(`${base}/test-cases/${id}`, 303);
  });

  web.post('/test-cases/:id/proposals/:version/:decision{accept|reject}', async (c) => {
    const id = testCaseId(c);
    const version = Number(c.req.param('version'));
    if (!id || !Number.isInteger(version) || version < 1) return notFoundPage(c, 'This heal proposal');
    const decide = c.req.param('decision') === 'accept' ? acceptHealProposal : rejectHealProposal;
    try {
      await decide(c.get('services'), c.get('session').projectId, id, version, sessionActor(c.get('session').tokenId));
    } catch (err) {
      if (!(err instanceof HealProposalError)) throw err;
      if (err.kind === 'not_found') return notFoundPage(c, 'This heal proposal');
      return renderPage(
        c,
        { title: 'Not done', nav: 'test-cases' },
        <>
          <h1>The proposal was not applied</h1>
          <p class="error" role="alert">
            {err.message}
          </p>
          <p>
            <a href={`${base}/test-cases/${id}`}>Back to the test case</a>
          </p>
        </>,
        409,
      );
    }
    return c.redirect(`${base}/test-cases/${id}#versions`, 303);
  });

  web.get('/test-cases/:id/export', async (c) => {
    const id = testCaseId(c);
    if (!id) return notFoundPage(c, 'This test case');
    const { fileName, spec } = await exportTestCaseSpec(c.get('services'), {
      projectId: c.get('session').projectId,
      testCaseId: id,
    });
    return c.body(spec, 200, {
      'content-type': 'text/typescript; charset=utf-8',
      'content-disposition': `attachment; filename="${fileName}"`,
    });
  });
}

// Test case ids are UUIDs; anything else is no test case (and never reaches Postgres as a bad uuid).
function testCaseId(c: Context<WebEnv>): string | undefined {
  const id = c.req.param('id')?.toLowerCase();
  return id && uuidPattern.test(id) ? id : undefined;
}
