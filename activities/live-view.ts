import type { BrowserContext, Page } from 'playwright-core';
import type { ActivityDeps } from './deps.js';
import { followScreencast, showsSecret, type FollowedScreencast } from '../src/browser/session/screencast.js';
import { openLiveView, type LiveKey, type LiveStep } from '../src/services/live-view.js';

export interface LiveJob {
  context: BrowserContext;
  page: Page;
  /** Tells the live view about a step (the list on the dashboard's live page grows). */
  live: { step(step: LiveStep): void };
}

const offAir: LiveJob['live'] = { step() {} };

/**
 * Wraps a browser job so the dashboard can watch it: the page's screencast and the steps go to the live row while
 * `work` runs, and the row is deleted when it ends, however it ends. Without a subject (a replay outside a run)
 * nothing is shown. A live view that cannot start does not stop the work.
 */
export function liveView<T>(
  deps: ActivityDeps,
  key: Omit<LiveKey, 'subjectId'> & { subjectId?: string; secrets: () => string[] },
  work: (job: LiveJob) => Promise<T>,
) {
  return async ({ context, page }: { context: BrowserContext; page: Page }): Promise<T> => {
    if (!key.subjectId) return work({ context, page, live: offAir });
    const { secrets, ...row } = key;
    // A burn-in is cast always (a page opened before it starts shows its first frame at once); a run's test only
    // while somebody watches it: a run's tests go by the hundred and nearly all are never watched.
    const onlyWhenWatched = key.kind === 'run_test';
    let watched = !onlyWhenWatched;
    // Set once the screencast has started; a viewer may come (or go) before that.
    const cast: { screencast?: FollowedScreencast } = {};
    // A frame taken while the page shows a secret (typed into a field that is not a password input, or echoed) is
    // not shown: configs' secrets are write-only on the dashboard.
    const hideFrame = () => showsSecret(cast.screencast?.current() ?? page, secrets());
    const publisher = await openLiveView(deps, { ...row, subjectId: key.subjectId }, deps.logger, {
      onlyWhenWatched,
      hideFrame,
      onWatchChange: (now) => {
        watched = now;
        cast.screencast?.setActive(now);
      },
    }).catch((err: unknown) => {
      deps.logger.warn('live view: not started', { kind: key.kind, subjectId: key.subjectId, error: String(err) });
      return undefined;
    });
    if (!publisher) return work({ context, page, live: offAir });
    const screencast = await followScreencast(context, page, (jpeg, tab) => publisher.frame(jpeg, tab.url()), {
      paused: !watched,
    }).catch(() => undefined);
    cast.screencast = screencast;
    // A viewer who came while the screencast was starting.
    screencast?.setActive(watched);
    try {
      return await work({ context, page, live: publisher });
    } finally {
      await screencast?.stop();
      await publisher.close();
    }
  };
}
