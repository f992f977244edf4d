import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, Table, When } from '../components.js';
import { renderPage } from '../layout.js';
import { dashboardApplications } from '../../services/dashboard.js';
import { listConfigs } from '../../services/configs.js';
import { ApplicationActions, EnvironmentActions } from './application-form-parts.js';
import { ConfigActions } from './config-forms.js';

// What the project is set up with: applications and the environments tests run against, and configs (the
// values tests type as {{NAME}}). The forms that change them are in application-forms.tsx and config-forms.tsx.

export function registerSettingsPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/applications');
  protectedArea(web, base, '/configs');

  web.get('/applications', async (c) => {
    const apps = await dashboardApplications(c.get('services'), c.get('session').projectId);
    return renderPage(
      c,
      { title: 'Applications', nav: 'applications' },
      <>
        <h1>Applications and environments</h1>
        <p>
          {apps.length === 0 && 'No applications yet. '}
          <a href={`${base}/new/application`}>Add an application</a>
        </p>
        {apps.map((app) => (
          <section class="card" aria-labelledby={`app-${app.shortId}`}>
            <h2 id={`app-${app.shortId}`}>{app.name}</h2>
            <p class="muted">
              <code>{app.shortId}</code> · {app.kind} · created <When at={app.createdAt} />
            </p>
            <ApplicationActions base={base} csrf={c.get('csrfToken')} app={app} />
            {app.environments.length === 0 ? (
              <p>No environment: a run of its tests has nowhere to go until one is added.</p>
            ) : (
              <Table label={`Environments of ${app.name}`}>
                <ColumnHeads names={['Environment', 'Short id', 'Where', 'Default', 'Production', 'Change']} />
                <tbody>
                  {app.environments.map((e) => (
                    <tr>
                      <td>{e.name}</td>
                      <td>
                        <code>{e.shortId}</code>
                      </td>
                      <td>
                        {e.url ??
                          (e.buildShortId ? (
                            <>
                              build <code>{e.buildShortId}</code>
                            </>
                          ) : (
                            ''
                          ))}
                      </td>
                      <td>{e.isDefault ? 'default' : ''}</td>
                      <td>{e.isProduction ? 'production' : ''}</td>
                      <td>
                        <EnvironmentActions base={base} csrf={c.get('csrfToken')} appShortId={app.shortId} env={e} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </section>
        ))}
      </>,
    );
  });

  web.get('/configs', async (c) => {
    // toConfigView gives a secret's value as null: the page cannot show what it never receives.
    const configs = await listConfigs(c.get('services'), c.get('session').projectId);
    return renderPage(
      c,
      { title: 'Configs', nav: 'configs' },
      <>
        <h1>Configs</h1>
        <p>
          Values the agent may type as <code>{'{{NAME}}'}</code>. A secret's value is write-only: it is never shown,
          logged or sent to the model.
        </p>
        <p>
          <a href={`${base}/new/config`}>Add a config</a>
        </p>
        {configs.length === 0 ? (
          <p>No configs yet.</p>
        ) : (
          <Table label="Configs">
            <ColumnHeads names={['Name', 'Value', 'Updated', 'Change']} />
            <tbody>
              {configs.map((cfg) => (
                <tr>
                  <td>
                    <code>{cfg.name}</code>
                  </td>
                  <td>
                    {cfg.isSecret ? (
                      <span class="muted">secret{cfg.hasValue ? ' (set)' : ' (empty)'}: ••••••</span>
                    ) : (
                      <code>{cfg.value}</code>
                    )}
                  </td>
                  <td>
                    <When at={cfg.updatedAt} />
                  </td>
                  <td>
                    <ConfigActions base={base} csrf={c.get('csrfToken')} config={cfg} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </>,
    );
  });
}
