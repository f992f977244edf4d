import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { defaultPerPattern } from '../src/domain/discovery-run.js';
import { intentMatcher } from '../src/domain/discovery-intent.js';
import { browserActivity, dbActivity, suggestActivity } from './activity-options.js';
import { innermostMessage } from './errors.js';
import { DiscoveryState, type PlannedVisit } from './discovery-state.js';
import type { DiscoveryCarry, DiscoveryInput, DiscoveryResult } from './discovery-contract.js';

const db = proxyActivities<Activities>(dbActivity);
// The resume-from replay (a login test, a few seconds) and each page visit: heartbeats notice a dead worker within
// 10 s; a cancelled discovery waits until the visit has closed its browser context.
const browser = proxyActivities<Activities>({ ...browserActivity, startToCloseTimeout: '5 minutes' });
const suggest = proxyActivities<Activities>(suggestActivity);

/** URLs of visited pages per discoveryVisitedUrls call (~60 bytes each in the history, far under 2 MB). */
const visitedPage = 5_000;

/**
 * A discovery (issue 34): explores an application breadth first from its environment's URL, one activity per page
 * visit (`visitDiscoveryPage`, which writes the page's row and finds it there on a retry: a killed worker loses
 * nothing and visits no page twice), within a budget of pages, actions and minutes of workflow time. The state and
 * every decision (what is admitted to the frontier, what is visited next, when to stop) are DiscoveryState's.
 *
 * Long discoveries: each visit costs the history ~6 events and its links. When the server suggests it (or past
 * `maxHistoryEvents`), the discovery stops launching, lets the visits in flight finish and continues as new with
 * its frontier and counters; the URLs already visited are read back from their rows.
 */
export async function discovery(input: DiscoveryInput): Promise<DiscoveryResult> {
  const continuations = input.carried?.continuations ?? 0;
  const eventBudget = input.maxHistoryEvents ?? 10_000;
  const concurrency = input.concurrency ?? 3;
  const perPattern = input.perPattern ?? defaultPerPattern;
  // Patched: a discovery with an intent started before it went breadth first alone.
  const wanted = input.intent && patched('discovery-intent') ? intentMatcher(input.intent) : undefined;
  const state = new DiscoveryState(input.budget, perPattern, wanted);
  const ids = { discoveryId: input.discoveryId, projectId: input.projectId };
  let carry: DiscoveryCarry | undefined;

  const launch = (visit: PlannedVisit) => {
    void browser.visitDiscoveryPage
      .executeWithOptions({ ...browserActivity, startToCloseTimeout: '5 minutes', summary: summaryOf(visit.url) }, [
        { ...ids, url: visit.url, maxActions: visit.maxActions, stateKey: state.stateKey, perPattern },
      ])
      .then(
        (outcome) => state.visited(visit, outcome),
        (err: unknown) => {
          if (!isCancellation(err)) log.warn('page visit failed', { url: visit.url, error: innermostMessage(err) });
          state.failed(visit);
        },
      );
  };

  try {
    if (input.carried) state.restore(input.carried, await visitedUrls(input.discoveryId));
    else {
      const begun = await browser.beginDiscovery(ids);
      state.start(Date.now(), begun.start, begun.stateKey);
    }
    let draining = false;
    for (;;) {
      if (state.stopReason(Date.now()) !== null) break;
      const history = workflowInfo();
      // Not before this run launched a visit: a budget smaller than what restoring costs would loop for ever.
      draining ||= (history.continueAsNewSuggested || history.historyLength >= eventBudget) && state.startedHere > 0;
      if (draining && state.inFlight === 0) {
        carry = state.carry(continuations + 1);
        break;
      }
      if (!draining) for (const visit of state.take(concurrency - state.inFlight, Date.now())) launch(visit);
      const settled = state.settled;
      const left = state.msLeft(Date.now());
      // With nothing in flight, only the clock can change anything: wake when the minutes run out.
      if (state.inFlight > 0 || left <= 0) await condition(() => state.settled > settled);
      else await condition(() => state.settled > settled, left);
    }
    if (!carry) {
      const stopReason = state.stopReason(Date.now());
      // Histories recorded before suggestions existed finish without the activity (docs/workflows.md).
      if (patched('discovery-suggestions')) await suggestTests(ids);
      await db.finishDiscovery({ ...ids, status: 'COMPLETED', stopReason, stateKey: state.stateKey });
      return { status: 'COMPLETED', stopReason, pages: state.pages, actions: state.actions, continuations };
    }
  } catch (err) {
    const cancelled = isCancellation(err);
    const error = cancelled ? null : innermostMessage(err);
    await CancellationScope.nonCancellable(async () => {
      await condition(() => state.inFlight === 0);
      await db.finishDiscovery({
        ...ids,
        status: cancelled ? 'CANCELLED' : 'FAILED',
        stopReason: null,
        error,
        stateKey: state.stateKey,
      });
    });
    const status = cancelled ? 'CANCELLED' : 'FAILED';
    return { status, stopReason: null, pages: state.pages, actions: state.actions, continuations };
  }
  log.info('discovery continues as new', {
    discoveryId: input.discoveryId,
    pages: state.pages,
    waiting: state.waiting,
  });
  return continueAsNew<typeof discovery>({ ...input, carried: carry });
}

/** Writes the discovery's suggested tests; a failure is logged, the discovery completes without them. */
async function suggestTests(ids: { discoveryId: string; projectId: string }): Promise<void> {
  try {
    await suggest.suggestDiscoveryTests(ids);
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('suggested tests not written', { discoveryId: ids.discoveryId, error: innermostMessage(err) });
  }
}

/** The URLs a continued discovery visited before, read back from their rows in pages. */
async function visitedUrls(discoveryId: string): Promise<string[]> {
  const urls: string[] = [];
  for (;;) {
    const page = await db.discoveryVisitedUrls({ discoveryId, offset: urls.length, limit: visitedPage });
    urls.push(...page);
    if (page.length < visitedPage) return urls;
  }
}

/** What the Temporal UI shows for a visit: its path and query, as a user reads the address bar. */
function summaryOf(url: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '') || '/';
  return `Visit ${path}`.slice(0, 400);
}
