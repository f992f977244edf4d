import type { Context, Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { ColumnHeads, listPageSize, listWindow, Pager, Status, When } from '../components.js';
import { CsrfField, notFoundPage, renderPage } from '../layout.js';
import { ReviewSection } from './reviews.js';
import {
  dashboardChats,
  dashboardConversation,
  type ChatMessageView,
  type ConversationPage,
} from '../../services/dashboard.js';
import { cancelReply, createConversation, sendMessage } from '../../services/chat.js';
import { getChangeReview, type ChangeReviewView } from '../../services/change-reviews.js';
import { InvalidError, notFoundAsUndefined } from '../../domain/errors.js';
import { Markdown } from '../markdown.js';
import { UsageText } from '../usage.js';

// The API's limit for one message (SendMessage in src/schemas/chat.ts).
const maxMessageLength = 20_000;

/** The conversation's change review, if it is one: the same view as GET /v1/chat/{shortId}/review. */
async function reviewOf(c: Context<WebEnv>, chatShortId: string): Promise<ChangeReviewView | undefined> {
  const services = c.get('services');
  return notFoundAsUndefined(() => getChangeReview(services, { projectId: c.get('session').projectId, chatShortId }));
}

/** The message field of a posted form, or InvalidError (shown as a page by the dashboard's error handler). */
async function postedMessage(c: Context<WebEnv>): Promise<string> {
  const value = (await c.req.parseBody()).message;
  const message = typeof value === 'string' ? value.trim() : '';
  if (!message) throw new InvalidError('Write a message first.');
  if (message.length > maxMessageLength) throw new InvalidError(`A message is at most ${maxMessageLength} characters.`);
  return message;
}

function MessageBox(props: { action: string; csrf: string; label: string; button: string }) {
  return (
    <form class="message-box" method="post" action={props.action}>
      <CsrfField token={props.csrf} />
      <label>
        {props.label}
        <textarea name="message" rows={3} maxlength={maxMessageLength} required></textarea>
      </label>
      <button class="primary" type="submit">
        {props.button}
      </button>
    </form>
  );
}

export function registerChatPages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/chats');

  web.get('/chats', async (c) => {
    const { page, limit, offset } = listWindow(c.req.query('page'));
    const { chats, total } = await dashboardChats(c.get('services'), c.get('session').projectId, { limit, offset });
    return renderPage(
      c,
      { title: 'Conversations', nav: 'chats' },
      <>
        <h1>Conversations</h1>
        <MessageBox
          action={`${base}/chats`}
          csrf={c.get('csrfToken')}
          label="Ask the assistant (it lists, creates and runs tests)"
          button="Start a conversation"
        />
        {chats.length === 0 ? (
          <p>No conversations yet.</p>
        ) : (
          <table>
            <caption class="muted">Most recently active first</caption>
            <ColumnHeads names={['Conversation', 'From', 'Messages', 'Last activity']} />
            <tbody>
              {chats.map((chat) => (
                <tr>
                  <td>
                    <a href={`${base}/chats/${chat.shortId}`}>{chat.title ?? chat.shortId}</a>
                  </td>
                  <td>{chat.source}</td>
                  <td>{chat.turnCount * 2}</td>
                  <td>
                    <When at={chat.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager path={`${base}/chats`} query={{}} page={page} pageSize={listPageSize} total={total} />
      </>,
    );
  });

  web.post('/chats', async (c) => {
    const chat = await createConversation(c.get('services'), {
      projectId: c.get('session').projectId,
      message: await postedMessage(c),
      source: 'ui',
    });
    return c.redirect(`${base}/chats/${chat.shortId}`, 303);
  });

  web.get('/chats/:shortId', async (c) => {
    const shortId = c.req.param('shortId');
    const { projectId } = c.get('session');
    const [page, review] = await Promise.all([
      dashboardConversation(c.get('services'), projectId, shortId),
      reviewOf(c, shortId),
    ]);
    if (!page) return notFoundPage(c, 'This conversation');
    const title = page.chat.title ?? `Conversation ${page.chat.shortId}`;
    return renderPage(
      c,
      { title, nav: 'chats' },
      <>
        <h1>{title}</h1>
        <ConversationBody base={base} csrf={c.get('csrfToken')} page={page} review={review} />
        <MessageBox
          action={`${base}/chats/${page.chat.shortId}`}
          csrf={c.get('csrfToken')}
          label="Your message"
          button="Send"
        />
      </>,
    );
  });

  // The part of the conversation that changes while a reply streams; htmx swaps it every second until no reply is open.
  web.get('/chats/:shortId/live', async (c) => {
    const { projectId } = c.get('session');
    const shortId = c.req.param('shortId');
    const [page, review] = await Promise.all([
      dashboardConversation(c.get('services'), projectId, shortId),
      reviewOf(c, shortId),
    ]);
    if (!page) return c.text('Conversation not found', 404);
    return c.html(<ConversationBody base={base} csrf={c.get('csrfToken')} page={page} review={review} />);
  });

  web.post('/chats/:shortId', async (c) => {
    const message = await postedMessage(c);
    const chat = await sendMessage(c.get('services'), {
      projectId: c.get('session').projectId,
      chatShortId: c.req.param('shortId'),
      message,
    });
    return c.redirect(`${base}/chats/${chat.shortId}`, 303);
  });

  web.post('/chats/:shortId/cancel', async (c) => {
    const shortId = c.req.param('shortId');
    await cancelReply(c.get('services'), { projectId: c.get('session').projectId, chatShortId: shortId });
    return c.redirect(`${base}/chats/${shortId}`, 303);
  });
}

const speaker = { user: 'You', assistant: 'Assistant' } as const;

function Message(props: { m: ChatMessageView }) {
  const { m } = props;
  const open = m.status === 'INITIATED' || m.status === 'PARTIAL';
  return (
    <li class={`msg ${m.role}`}>
      <p class="who">
        <strong>{speaker[m.role]}</strong> <When at={m.createdAt} />
        {m.role === 'assistant' && m.status !== 'COMPLETED' && (
          <>
            {' '}
            · <Status value={open ? 'writing…' : m.status} />
          </>
        )}
        {m.role === 'assistant' && !open && (
          <>
            {' '}
            · <UsageText usage={m.usage} />
          </>
        )}
      </p>
      {!m.text ? (
        open && <p class="muted">Thinking…</p>
      ) : m.role === 'assistant' && m.status !== 'FAILED' ? (
        <Markdown class="text" text={m.text} />
      ) : (
        // What a person typed is shown as typed; a failure's reason is plain text.
        <div class={`text${m.status === 'FAILED' ? ' error' : ''}`}>{m.text}</div>
      )}
    </li>
  );
}

function ConversationBody(props: {
  base: string;
  csrf: string;
  page: ConversationPage;
  review: ChangeReviewView | undefined;
}) {
  const { base, page } = props;
  const path = `${base}/chats/${page.chat.shortId}`;
  // A review's verdict is written at its end: keep polling while the review still runs, even between replies.
  const live =
    page.replying ||
    (props.review !== undefined && (props.review.state === 'QUEUED' || props.review.state === 'RUNNING'));
  return (
    <div
      id="chat-live"
      {...(live ? { 'hx-get': `${path}/live`, 'hx-trigger': 'every 1s', 'hx-swap': 'outerHTML' } : {})}
    >
      {props.review && <ReviewSection base={base} review={props.review} />}
      {page.truncated && <p class="muted">Earlier messages are not shown.</p>}
      <ol class="messages" aria-label="Messages, oldest first">
        {page.messages.map((m) => (
          <Message m={m} />
        ))}
      </ol>
      <p class="muted" role="status">
        {page.replying ? 'The assistant is replying; this page updates as it writes.' : ''}
      </p>
      {page.replying && (
        <form class="inline" method="post" action={`${path}/cancel`}>
          <CsrfField token={props.csrf} />
          <button type="submit">Stop the reply</button>
        </form>
      )}
      {page.runs.length > 0 && (
        <>
          <h2>Runs started here</h2>
          <ul>
            {page.runs.map((r) => (
              <li>
                <a href={`${base}/runs/${r.shortId}`}>{r.shortId}</a> <Status value={r.status} />{' '}
                <Status value={r.result} /> <When at={r.createdAt} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
