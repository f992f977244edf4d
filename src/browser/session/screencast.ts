import type { BrowserContext, CDPSession, Frame, Page } from 'playwright-core';
import { pageFunction } from '../page-function.js';

export interface ScreencastOptions {
  /** Frames are scaled down to fit (the live view shows them small; smaller frames are cheaper to ship). */
  maxWidth?: number;
  maxHeight?: number;
  /** JPEG quality, 0-100. */
  quality?: number;
}

/**
 * Streams the page's screen as Chromium paints it (CDP `Page.startScreencast`): `onFrame` gets every JPEG the
 * browser sends; throttling is the receiver's, which keeps only the newest. Each frame is acknowledged at once,
 * else Chromium stops sending. Returns the stop; a page or browser that is already gone stops quietly.
 */
export async function startScreencast(
  page: Page,
  onFrame: (jpeg: Buffer) => void,
  opts: ScreencastOptions = {},
): Promise<() => Promise<void>> {
  const params = {
    format: 'jpeg' as const,
    quality: opts.quality ?? 50,
    maxWidth: opts.maxWidth ?? 800,
    maxHeight: opts.maxHeight ?? 600,
  };
  let session: CDPSession | undefined;
  let stopped = false;
  const attach = async (): Promise<void> => {
    // Not Chromium, or the page closed: no live view, the work goes on.
    const attached = await page
      .context()
      .newCDPSession(page)
      .catch(() => undefined);
    if (!attached) return;
    attached.on('Page.screencastFrame', (event) => {
      attached.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {});
      onFrame(Buffer.from(event.data, 'base64'));
    });
    const started = await attached.send('Page.startScreencast', params).then(
      () => true,
      () => false,
    );
    if (started && !stopped) session = attached;
    else await attached.detach().catch(() => {});
  };
  // A tab just opened can refuse the start ("Not attached to an active page") and its session stays useless after
  // the tab's first navigation: a live view that never started would show the tab before it. So a refused start
  // attaches again at the next main-frame navigation, one attempt at a time, none lost to a navigation meanwhile.
  let attempt: Promise<void> | undefined;
  let navigatedMeanwhile = false;
  const retry = () => {
    if (session || stopped || page.isClosed()) return;
    if (attempt) {
      navigatedMeanwhile = true;
      return;
    }
    attempt = attach().finally(() => {
      attempt = undefined;
      if (navigatedMeanwhile) {
        navigatedMeanwhile = false;
        retry();
      }
    });
  };
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) retry();
  };
  page.on('framenavigated', onNavigated);
  retry();
  await attempt;
  return async () => {
    stopped = true;
    page.off('framenavigated', onNavigated);
    await attempt;
    await session?.send('Page.stopScreencast').catch(() => {});
    await session?.detach().catch(() => {});
  };
}

/** A screencast that follows the tab the work is on, and can be paused while nobody watches. */
export interface FollowedScreencast {
  /** The tab shown (followed while paused too), whose text decides whether a frame may show a secret. */
  current: () => Page;
  /** Starts or stops Chromium's screencast; stopped, Chromium encodes no frames at all. */
  setActive: (active: boolean) => void;
  stop: () => Promise<void>;
}

/**
 * The screencast of the tab the work is on: a flow that opens a tab (a link with target=_blank, a popup, an OAuth
 * window) goes on there, so the live view follows the newest open tab and, when it closes, goes back to the one
 * before. Switching, pausing and resuming are serialised: a tab opened while the previous switch is still attaching
 * is not lost. `paused` starts it with no screencast running (a run's test nobody watches yet).
 */
export async function followScreencast(
  context: BrowserContext,
  first: Page,
  onFrame: (jpeg: Buffer, page: Page) => void,
  opts: ScreencastOptions & { paused?: boolean } = {},
): Promise<FollowedScreencast> {
  const open: Page[] = [first];
  const idle = async () => {};
  const cast = (page: Page) => startScreencast(page, (jpeg) => onFrame(jpeg, page), opts);
  // What is shown and cast now, and what the latest switch, pause or resume asked for: each request queues one
  // change that brings the first to the second, so requests made while a change is attaching are not lost.
  let shown = { page: first, active: !opts.paused };
  let wanted = shown;
  let stopCurrent = shown.active ? await cast(first) : idle;
  let changing = Promise.resolve();
  let stopped = false;
  const request = (next: Partial<typeof wanted>) => {
    wanted = { ...wanted, ...next };
    changing = changing.then(async () => {
      if (stopped || (wanted.page === shown.page && wanted.active === shown.active)) return;
      await stopCurrent();
      stopCurrent = idle;
      shown = wanted;
      if (shown.active) stopCurrent = await cast(shown.page);
    });
  };
  const onPage = (page: Page) => {
    open.push(page);
    page.once('close', () => {
      open.splice(open.indexOf(page), 1);
      const back = open.at(-1);
      if (page === wanted.page && back) request({ page: back });
    });
    request({ page });
  };
  context.on('page', onPage);
  return {
    current: () => shown.page,
    setActive: (active) => request({ active }),
    stop: async () => {
      context.off('page', onPage);
      await changing;
      stopped = true;
      await stopCurrent();
    },
  };
}

/** Shorter values would match everywhere (as in secret-mask.ts). */
const minSecretLength = 3;

const holdsSecret = pageFunction<(secrets: string[]) => boolean>(`(secrets) => {
  const holds = (text) => typeof text === 'string' && secrets.some((s) => text.includes(s));
  for (const el of document.querySelectorAll('input, textarea, select')) if (el.type !== 'password' && holds(el.value)) return true;
  return holds(document.body ? document.body.innerText : '');
}`);

/**
 * Whether the page shows one of `secrets` now (a field's value other than a password input's, or text), in any
 * frame: a screencast frame is not shown then. A frame that cannot be read counts as showing one.
 */
export async function showsSecret(page: Page, secrets: string[]): Promise<boolean> {
  const shown = secrets.filter((s) => s.length >= minSecretLength);
  if (shown.length === 0) return false;
  const found = await Promise.all(
    page.frames().map((frame) => frame.evaluate(holdsSecret, shown).catch(() => !frame.isDetached())),
  );
  return found.some(Boolean);
}
