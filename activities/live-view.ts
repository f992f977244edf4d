import type { BrowserContext, Page } from 'playwright-core';
import type { ActivityDeps } from './deps.js';
import { followScreencast, showsSecret } from '../src/browser/session/screencast.js';
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
    // A frame taken while the page shows a secret (typed into a field that is not a password input, or echoed) is
    // not shown: configs' secrets are write-only on the dashboard.
    let shown = () => page;
    const hideFrame = () => showsSecret(shown(), secrets());
    const publisher = await openLiveView(deps, { ...row, subjectId: key.subjectId }, deps.logger, {
      onlyWhenWatched: key.kind === 'run_test',
      hideFrame,
    }).catch((err: unknown) => {
      deps.logger.warn('live view: not started', { kind: key.kind, subjectId: key.subjectId, error: String(err) });
      return undefined;
    });
    if (!publisher) return work({ context, page, live: offAir });
    const screencast = await followScreencast(context, page, (jpeg, tab) => publisher.frame(jpeg, tab.url())).catch(
      () => undefined,
    );
    if (screencast) shown = screencast.current;
    try {
      return await work({ context, page, live: publisher });
    } finally {
      await screencast?.stop();
      await publisher.close();
    }
  };
}
