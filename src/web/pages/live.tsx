import type { Context, Hono } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { uuidPattern } from '../components.js';
import { CsrfField, notFoundPage, renderPage } from '../layout.js';
import { liveViewScriptPath, registerLiveViewAsset } from '../live-view-asset.js';
import {
  findLiveSubject,
  liveKinds,
  markWatched,
  readLiveState,
  stopLive,
  type LiveSubject,
} from '../../services/live-view-watch.js';
import type { LiveStep } from '../../services/live-view.js';

// Until the first frame the page polls often (the first frame is what a person waits for), then at the
// screencast's own pace (the worker writes at most 4 frames a second).
const firstFramePollMs = 100;
const framePollMs = 250;
const watchEveryMs = 2_000;
const subjectCheckMs = 1_000;
// A stream ends after this long; EventSource reconnects by itself.
const streamLifetimeMs = 10 * 60_000;

const what = (s: LiveSubject) => (s.kind === 'burn_in' ? 'burn-in' : 'test');

async function subjectOf(c: Context<WebEnv>): Promise<LiveSubject | undefined> {
  const kind = liveKinds[c.req.param('kind') as keyof typeof liveKinds];
  const id = c.req.param('id') ?? '';
  if (!kind || !uuidPattern.test(id)) return undefined;
  return findLiveSubject(c.get('services'), c.get('session').projectId, kind, id.toLowerCase());
}

export function registerLivePages(web: Hono<WebEnv>, base: string): void {
  registerLiveViewAsset(web);
  protectedArea(web, base, '/live');

  web.get('/live/:kind/:id', async (c) => {
    const subject = await subjectOf(c);
    if (!subject) return notFoundPage(c, 'This live view');
    const state = await readLiveState(c.get('services'), c.get('session').projectId, subject, 2 ** 31 - 1); // the steps only: no frame is newer than the largest integer
    // A row of a subject that is over is one its worker could not delete (it died): nothing is live.
    const live = subject.running;
    const path = `${base}/live/${c.req.param('kind')}/${subject.id}`;
    return renderPage(
      c,
      { title: `Live: ${subject.name}`, nav: subject.kind === 'burn_in' ? 'test-cases' : 'runs' },
      <>
        <h1>Live: {subject.name}</h1>
        <section id="live" aria-labelledby="live-title" {...(live ? { 'data-events': `${path}/events` } : {})}>
          <h2 id="live-title">
            {subject.kind === 'burn_in' ? 'The agent recording its steps' : 'The test replaying its steps'}
          </h2>
          <p id="live-status" role="status">
            {live ? (
              state ? (
                'Live.'
              ) : (
                `Waiting for the ${what(subject)} to start…`
              )
            ) : (
              <>
                This {what(subject)} is not running. <a href={`${base}${subject.resultPath}`}>See the result</a>
              </>
            )}
          </p>
          {live && (
            <form id="live-stop" method="post" action={`${path}/stop`}>
              <CsrfField token={c.get('csrfToken')} />
              {/* A run's test stops with its run: there is no stopping one test of a run. */}
              <button type="submit">{subject.kind === 'burn_in' ? 'Stop the burn-in' : 'Stop the whole run'}</button>
            </form>
          )}
          <figure class="live-frame">
            <img
              id="live-frame"
              class="shot"
              hidden
              alt={`The browser of the ${what(subject)}, as it is now`}
              width="800"
            />
            <figcaption id="live-url" class="muted"></figcaption>
          </figure>
          <noscript>
            <p>Without JavaScript the browser is not shown; reload the page for the steps so far.</p>
          </noscript>
          <h3>Steps so far</h3>
          <p id="live-steps-empty" class="muted" hidden={(state?.steps.length ?? 0) > 0}>
            None yet.
          </p>
          <ol id="live-steps">
            {(state?.steps ?? []).map((s) => (
              <StepItem step={s} />
            ))}
          </ol>
        </section>
        {live && <script src={`${base}${liveViewScriptPath}`} defer></script>}
      </>,
    );
  });

  web.get('/live/:kind/:id/events', async (c) => {
    const subject = await subjectOf(c);
    if (!subject) return c.text('Live view not found', 404);
    const services = c.get('services');
    const { projectId } = c.get('session');
    return streamSSE(c, (stream) =>
      pushLive(stream, { services, projectId, subject, result: `${c.get('base')}${subject.resultPath}` }),
    );
  });

  web.post('/live/:kind/:id/stop', async (c) => {
    const kind = liveKinds[c.req.param('kind') as keyof typeof liveKinds];
    if (!kind || !uuidPattern.test(c.req.param('id'))) return notFoundPage(c, 'This live view');
    const services = c.get('services');
    await stopLive(services, c.get('session').projectId, kind, c.req.param('id').toLowerCase());
    return c.redirect(`${base}/live/${c.req.param('kind')}/${c.req.param('id')}`, 303);
  });
}

function StepItem(props: { step: LiveStep }) {
  const s = props.step;
  return (
    <li class={s.ok ? undefined : 'muted'}>
      {s.ok ? `Step ${s.step}: ` : 'Tried and failed: '}
      {s.action} — {s.description}
    </li>
  );
}

/**
 * Pushes the live row to one viewer as it changes: `frame` (the newest JPEG, base64), `steps` (all so far, when they
 * change), `status`, and `end` once the work is over (no row, and the subject no longer running).
 */
async function pushLive(
  stream: SSEStreamingApi,
  ctx: { services: Parameters<typeof readLiveState>[0]; projectId: string; subject: LiveSubject; result: string },
): Promise<void> {
  const { services, projectId, subject } = ctx;
  let aborted = false;
  stream.onAbort(() => void (aborted = true));
  let seq = 0;
  let sentSteps = '';
  let seen = false;
  let watchedAt = 0;
  let checkedAt = Date.now();
  const until = Date.now() + streamLifetimeMs;
  while (!aborted && Date.now() < until) {
    const state = await readLiveState(services, projectId, subject, seq);
    if (state) {
      if (!seen) await stream.writeSSE({ event: 'status', data: 'Live.' });
      seen = true;
      if (Date.now() - watchedAt >= watchEveryMs) {
        watchedAt = Date.now();
        await markWatched(services, projectId, subject);
      }
      const steps = JSON.stringify(state.steps);
      if (steps !== sentSteps) await stream.writeSSE({ event: 'steps', data: (sentSteps = steps) });
      if (state.frame) {
        seq = state.frameSeq;
        await stream.writeSSE({
          event: 'frame',
          data: JSON.stringify({ seq, url: state.frameUrl, jpeg: state.frame.toString('base64') }),
        });
      }
    }
    if (Date.now() - checkedAt >= subjectCheckMs) {
      // No row: not started yet, between a retry's attempts, or over; a row of a dead worker stays. Only the
      // subject's status tells.
      checkedAt = Date.now();
      const now = await findLiveSubject(services, projectId, subject.kind, subject.id);
      if (!now?.running) {
        await stream.writeSSE({
          event: 'end',
          data: JSON.stringify({ message: `The ${what(subject)} ended.`, result: ctx.result }),
        });
        return;
      }
    }
    await stream.sleep(seq > 0 ? framePollMs : firstFramePollMs);
  }
}
