import type { Locator, Page } from 'playwright-core';
import type { Step } from '../../domain/steps.js';
import { framePrefix } from '../../domain/locator-frames.js';
import { quote } from '../../domain/locators.js';
import { assertsElement, recordedTarget, type SeenElement } from '../../domain/target-check.js';
import { resolveLocator } from '../locators.js';
import { parseTargetLine } from '../record/record.js';
import { firstMatching, probeElement } from '../steps/actions.js';
import { seenAs } from './verify-target.js';

// Finding a step's element and reading it for the target check, in as few round trips to the page as the checks
// allow. Each Playwright call is one round trip (node → browser → page and back, ~5–20 ms on a loaded machine),
// and a replayed step used to make three before acting: wait for any locator, count the primary, read the aria
// snapshot. Playwright's `ariaSnapshot` waits for its element like `waitFor` does, so the wait and the read are
// one call; the count is only needed to tell which of several locators matched. Cheaper still (~1 ms against
// ~4 for a snapshot): when the element is already there with exactly its recorded role and name, one count of
// "the first match, the primary's, with the recorded role and name" says so, and the snapshot would show just that.

/** A step's element as the probe found it; `seen` when it was read on the way (the check's first read). */
export interface Probed {
  locator: Locator;
  expression: string;
  seen?: SeenElement;
}

/** Whether replay compares the step's element with the recorded one (what verifyTarget reads it for). */
function comparesTarget(step: Step): boolean {
  return step.action !== 'assert_text' && (assertsElement(step) || Boolean(step.target));
}

/**
 * Waits up to `waitMs` for any of the step's locators (all at once, the first in the step's order wins, as
 * `probeElement`), reading the element as it waits when the step's target will be compared. Undefined when none
 * matched in time.
 */
export async function probeAndSee(
  page: Page,
  step: Step,
  expressions: string[],
  waitMs: number,
): Promise<Probed | undefined> {
  if (expressions.length === 0 || !comparesTarget(step)) return probeElement(page, expressions, waitMs);
  const started = Date.now();
  const locators = expressions.map((e) => resolveLocator(page, e));
  const first = locators
    .slice(1)
    .reduce((all, l) => all.or(l), locators[0]!)
    .first();
  // `first` is the first match of all the locators in page order: when the primary matches it, it is also the
  // primary's first match, the element the check reads.
  const primary = locators.length > 1 ? first.and(locators[0]!) : first;
  const unchanged = withRecordedRoleAndName(page, step, expressions[0]!, primary);
  if (unchanged && (await unchanged.locator.count().catch(() => 0)) > 0)
    return { locator: locators[0]!, expression: expressions[0]!, seen: unchanged.seen };
  const timeout = Math.max(1, waitMs);
  let snapshot: string;
  let text: string;
  try {
    [snapshot, text] = await Promise.all([
      first.ariaSnapshot({ timeout }),
      assertsElement(step) ? first.innerText({ timeout }).catch(() => '') : '',
    ]);
  } catch {
    // Nothing matched in time, or the element could not be read: the plain probe decides, in the time left.
    return probeElement(page, expressions, waitMs - (Date.now() - started));
  }
  const seen = seenAs(parseTargetLine(snapshot.split('\n')[0] ?? ''), text);
  if (locators.length === 1) return { locator: locators[0]!, expression: expressions[0]!, seen };
  // The element read was the primary's first match: the read stands.
  if ((await primary.count().catch(() => 0)) > 0) return { locator: locators[0]!, expression: expressions[0]!, seen };
  // A fallback's element came first: which locator the step uses is counted out, and the check reads it again.
  return firstMatching(locators, expressions);
}

/**
 * `element` narrowed to the recorded role and exact name (in the primary locator's frame), and what a read of it
 * would see; undefined when the recorded target cannot be matched that way (no name, no real role, no target).
 */
function withRecordedRoleAndName(
  page: Page,
  step: Step,
  primary: string,
  element: Locator,
): { locator: Locator; seen: SeenElement } | undefined {
  const target = step.target && recordedTarget(step);
  if (!target?.role || !target.name || target.role === 'generic' || target.role === 'text') return undefined;
  try {
    const roleAndName = resolveLocator(
      page,
      `${framePrefix(primary)}getByRole(${quote(target.role)}, { name: ${quote(target.name)}, exact: true })`,
    );
    return { locator: element.and(roleAndName), seen: { role: target.role, name: target.name, text: '' } };
  } catch {
    // A role or name the locator syntax refuses: the snapshot reads the element instead.
    return undefined;
  }
}
