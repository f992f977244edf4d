import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, listPageSize, pageNumber, Pager, uuidPattern, When } from '../components.js';
import { notFoundPage, renderPage } from '../layout.js';
import { notFoundAsUndefined } from '../../domain/errors.js';
import { getMessage, inboxPage } from '../../services/inbox.js';

// The mail Proctor's inbox received for the project ({{INBOX}} addresses of runs, {{INBOX:name}} ones), kept 7
// days: what a person opens when a wait_for_email step failed. Mail is written by strangers, so nothing of it is
// ever rendered as HTML: the HTML body is shown as its source text.

export function registerInboxPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/inbox');

  web.get('/inbox', async (c) => {
    const { db, blobs } = c.get('services');
    const to = c.req.query('to')?.trim().slice(0, 320) || undefined;
    const page = pageNumber(c.req.query('page'));
    const { messages, total } = await inboxPage({ db, blobs }, c.get('session').projectId, {
      to,
      page,
      pageSize: listPageSize,
    });
    return renderPage(
      c,
      { title: 'Inbox', nav: 'inbox' },
      <>
        <h1>Inbox</h1>
        <p>
          Mail sent to this project's inbox addresses (<code>{'{{INBOX}}'}</code> and <code>{'{{INBOX:name}}'}</code> in
          steps), newest first. Mail is kept 7 days.
        </p>
        <form class="filters" method="get" action={`${base}/inbox`} role="search" aria-label="Filter mail">
          <label>
            To
            <input name="to" type="text" value={to ?? ''} />
          </label>
          <button type="submit">Filter</button>
        </form>
        {messages.length === 0 ? (
          <p>{to ? 'No mail to this address.' : 'No mail yet.'}</p>
        ) : (
          <table>
            <ColumnHeads names={['Subject', 'To', 'From', 'Received', 'Found']} />
            <tbody>
              {messages.map((m) => (
                <tr>
                  <td>
                    <a href={`${base}/inbox/${m.id}`}>{m.subject || '(no subject)'}</a>
                  </td>
                  <td>
                    <a href={`${base}/inbox?to=${encodeURIComponent(m.to)}`}>{m.to}</a>
                  </td>
                  <td>{m.from}</td>
                  <td>
                    <When at={m.receivedAt} />
                  </td>
                  <td>
                    <Findings code={m.code} link={m.link} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager path={`${base}/inbox`} query={{ to }} page={page} pageSize={listPageSize} total={total} />
      </>,
    );
  });

  web.get('/inbox/:id', async (c) => {
    const id = c.req.param('id');
    if (!uuidPattern.test(id)) return notFoundPage(c, 'This message');
    const { db, blobs } = c.get('services');
    const message = await notFoundAsUndefined(() =>
      getMessage({ db, blobs }, c.get('session').projectId, id.toLowerCase()),
    );
    if (!message) return notFoundPage(c, 'This message');
    return renderPage(
      c,
      { title: `Mail: ${message.subject || '(no subject)'}`, nav: 'inbox' },
      <>
        <h1>{message.subject || '(no subject)'}</h1>
        <dl class="facts">
          <dt>To</dt>
          <dd>
            <a href={`${base}/inbox?to=${encodeURIComponent(message.to)}`}>{message.to}</a>
          </dd>
          <dt>From</dt>
          <dd>{message.from}</dd>
          <dt>Received</dt>
          <dd>
            <When at={message.receivedAt} />
          </dd>
          <dt>Size</dt>
          <dd>{message.sizeBytes} bytes</dd>
          <dt>Code</dt>
          <dd>{message.code ? <code>{message.code}</code> : <span class="muted">none found</span>}</dd>
          <dt>Link</dt>
          <dd>{message.link ? <code class="wrap">{message.link}</code> : <span class="muted">none found</span>}</dd>
        </dl>
        <h2>Text body</h2>
        {message.text ? <pre class="mail-body">{message.text}</pre> : <p class="muted">The mail has no text part.</p>}
        <h2>HTML body</h2>
        {message.html ? (
          <details>
            <summary>HTML source (shown as text, never rendered)</summary>
            <pre class="mail-body">{message.html}</pre>
          </details>
        ) : (
          <p class="muted">The mail has no HTML part.</p>
        )}
        <p>
          <a href={`${base}/inbox`}>All mail</a>
        </p>
      </>,
    );
  });
}

/** What a `wait_for_email` step would take from the mail: the code and whether there is a link. */
function Findings(props: { code: string | null; link: string | null }) {
  if (!props.code && !props.link) return <span class="muted">nothing</span>;
  return (
    <>
      {props.code && (
        <span>
          code <code>{props.code}</code>
        </span>
      )}
      {props.code && props.link && ', '}
      {props.link && <span>a link</span>}
    </>
  );
}
