import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, When } from '../components.js';
import { notFoundPage, renderPage } from '../layout.js';
import { PostButton } from '../form-kit.js';
import { defaultTunnelDomain } from '../../domain/tunnels.js';
import { listTunnelViews, removeTunnel, type TunnelView } from '../../services/remote-tunnels.js';
import { notFoundAsUndefined } from '../../domain/errors.js';

// Remote tunnels (`proctor tunnel`) with their live status: the table re-reads the edges' connection heartbeats
// every few seconds while any tunnel is still open. Deleting one disconnects its client, as the API's DELETE does.

const liveEveryMs = 5_000;

const tunnelsOf = (c: Context<WebEnv>) => {
  const services = c.get('services');
  return listTunnelViews(services, c.get('deps').tunnels?.domain ?? defaultTunnelDomain, c.get('session').projectId);
};

export function registerTunnelPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/tunnels');

  web.get('/tunnels', async (c) =>
    renderPage(
      c,
      { title: 'Remote tunnels', nav: 'tunnels' },
      <>
        <h1>Remote tunnels</h1>
        <p>
          Local ports exposed to the browser agents with <code>proctor tunnel --port N</code>. A tunnel is healthy with
          4 connections, degraded with fewer, inactive with none.
        </p>
        <TunnelTable base={base} csrf={c.get('csrfToken')} tunnels={await tunnelsOf(c)} />
      </>,
    ),
  );

  web.get('/tunnels/live', async (c) =>
    c.html(<TunnelTable base={base} csrf={c.get('csrfToken')} tunnels={await tunnelsOf(c)} />),
  );

  // As the API's DELETE: the row goes, and this process's edge drops the client, which then stops.
  web.post('/tunnels/:runner/delete', async (c) => {
    const services = c.get('services');
    const runnerId = c.req.param('runner');
    const removed = await notFoundAsUndefined(() =>
      removeTunnel(services, c.get('session').projectId, runnerId).then(() => true),
    );
    if (!removed) return notFoundPage(c, 'This tunnel');
    c.get('deps').tunnels?.edge?.disconnect(runnerId);
    return c.redirect(`${base}/tunnels`, 303);
  });
}

function TunnelTable(props: { base: string; csrf: string; tunnels: TunnelView[] }) {
  const open = props.tunnels.some((t) => !t.isExpired);
  const live = open
    ? { 'hx-get': `${props.base}/tunnels/live`, 'hx-trigger': `every ${liveEveryMs / 1000}s`, 'hx-swap': 'outerHTML' }
    : {};
  return (
    <div id="tunnels-live" {...live}>
      {props.tunnels.length === 0 ? (
        <p>No tunnels.</p>
      ) : (
        <table>
          <caption class="muted">{open ? 'Status updates live' : 'Every tunnel has expired'}</caption>
          <ColumnHeads names={['Tunnel', 'Status', 'Connections', 'Ports', 'Expires', 'Change']} />
          <tbody>
            {props.tunnels.map((t) => (
              <tr>
                <td>
                  <code>{t.runnerId}</code>
                  {t.public && <span class="muted"> (public)</span>}
                </td>
                <td>
                  <span class={`status tunnel-${t.status}`}>{t.isExpired ? 'expired' : t.status}</span>
                </td>
                <td>{t.connections}</td>
                <td>
                  <ul class="plain">
                    {t.hostnames.map((h) => (
                      <li>
                        {h.localPort} → <code>{h.url}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  <When at={t.expiresAt} />
                </td>
                <td>
                  <PostButton
                    action={`${props.base}/tunnels/${t.runnerId}/delete`}
                    csrf={props.csrf}
                    text="Delete"
                    about={t.runnerId}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
