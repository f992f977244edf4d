import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pageAt, pagesOfSteps } from '../../src/domain/step-pages.js';
import type { Step } from '../../src/domain/steps.js';

// Which page each recorded step acted on (issue 34). The properties run over generated walks through a small site:
// the walk knows where the browser truly is at every step, the steps are what burn-in would have recorded, with
// `at` kept on a random part of them (steps recorded before `at` existed have none).

const base = 'https://app.example.test';
const sitePages = ['/', '/orders', '/orders/7', '/orders/7?tab=notes', '/cart', '/settings'];

type Move =
  | { kind: 'navigate'; to: string } // a navigate step
  | { kind: 'link'; to: string } // a click that follows a link: the page changes after the step
  | { kind: 'act' } // a fill or a click that stays
  | { kind: 'assert_url'; part: 'whole' | 'first segment' | 'three characters' } // the URL asserted, or a part
  | { kind: 'back' } // browser Back
  | { kind: 'mail' }; // a pageless step

const page = fc.constantFrom(...sitePages);
const move: fc.Arbitrary<Move> = fc.oneof(
  page.map((to) => ({ kind: 'navigate' as const, to })),
  page.map((to) => ({ kind: 'link' as const, to })),
  fc.constant({ kind: 'act' as const }),
  fc
    .constantFrom('whole' as const, 'first segment' as const, 'three characters' as const)
    .map((part) => ({ kind: 'assert_url' as const, part })),
  fc.constant({ kind: 'back' as const }),
  fc.constant({ kind: 'mail' as const }),
);

/** The steps of a walk and the true page of each (null: a step on no page); `keepAt` says which steps keep `at`. */
function walk(start: string, moves: Move[], keepAt: boolean[]): { steps: Step[]; truth: (string | null)[] } {
  let current = start;
  const history: string[] = [];
  const go = (to: string) => {
    if (to !== current) history.push(current);
    current = to;
  };
  const steps: Step[] = [];
  const truth: (string | null)[] = [];
  moves.forEach((m, i) => {
    let step: Step;
    if (m.kind === 'navigate') {
      go(m.to);
      step = { action: 'navigate', value: m.to, description: 'go' };
    } else if (m.kind === 'link') {
      step = { action: 'click', locator: "getByRole('link', { name: 'x' })", description: 'follow' };
    } else if (m.kind === 'act') {
      step = { action: 'fill', locator: "getByLabel('Note')", value: 'x', description: 'type' };
    } else if (m.kind === 'assert_url') {
      // `/orders` passes on `/orders/7` as well: the assertion cannot tell them apart.
      const value =
        m.part === 'whole'
          ? current
          : m.part === 'first segment'
            ? current.split('/').slice(0, 2).join('/')
            : current.slice(0, 3);
      step = { action: 'assert_url', value, description: 'url' };
    } else if (m.kind === 'back') {
      if (history.length === 0) return; // Back on the first page fails the step: burn-in records none
      current = history.pop()!;
      step = { action: 'go_back', description: 'back' };
    } else {
      step = { action: 'wait_for_email', value: '{{INBOX}}', description: 'mail' };
    }
    const pageless = step.action === 'wait_for_email';
    if (keepAt[i] && !pageless) step.at = current;
    steps.push(step);
    truth.push(pageless ? null : current);
    if (m.kind === 'link') go(m.to);
  });
  return { steps, truth };
}

const walks = fc
  .record({
    start: page,
    moves: fc.array(move, { maxLength: 25 }),
    keep: fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }),
  })
  .map(({ start, moves, keep }) => ({ start, ...walk(start, moves, keep) }));

describe('pagesOfSteps', () => {
  it('never claims a page it did not see: a step it does not mark as inferred is on its true page', () => {
    fc.assert(
      fc.property(walks, ({ start, steps, truth }) => {
        const pages = pagesOfSteps(steps, `${base}${start}`);
        expect(pages).toHaveLength(steps.length);
        pages.forEach((p, i) => {
          if (!p.inferred && truth[i] !== null) expect(p.page, `step ${i}`).toBe(truth[i]);
          if (!p.inferred) expect(['at', 'navigate', 'assert_url']).toContain(p.source);
        });
      }),
      { numRuns: 2_000 },
    );
  });

  it('a step recorded with `at` is on that page, whatever came before', () => {
    fc.assert(
      fc.property(walks, ({ start, steps }) => {
        pagesOfSteps(steps, `${base}${start}`).forEach((p, i) => {
          if (steps[i]!.at !== undefined) expect(p).toEqual({ page: steps[i]!.at, inferred: false, source: 'at' });
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a test that changes page only by navigating and going back is placed exactly, with or without `at`', () => {
    const noLinks = walks.filter(({ steps }) => steps.every((s) => s.action !== 'click'));
    fc.assert(
      fc.property(noLinks, ({ start, steps, truth }) => {
        const bare = steps.map(({ at: _at, ...step }) => step);
        for (const recorded of [steps, bare]) {
          const pages = pagesOfSteps(recorded, `${base}${start}`).map((p) => p.page);
          pages.forEach((p, i) => truth[i] !== null && expect(p, `step ${i}`).toBe(truth[i]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('writing the pages it found as `at` changes none of them (it agrees with itself)', () => {
    fc.assert(
      fc.property(walks, ({ start, steps }) => {
        const found = pagesOfSteps(steps, `${base}${start}`);
        const written = steps.map((s, i) =>
          found[i]!.page !== null && s.action !== 'wait_for_email' ? { ...s, at: found[i]!.page! } : s,
        );
        expect(pagesOfSteps(written, `${base}${start}`).map((p) => p.page)).toEqual(found.map((p) => p.page));
      }),
      { numRuns: 300 },
    );
  });

  it('without `at` or a move, every step stays on the start page and says it was inferred', () => {
    const steps: Step[] = [
      { action: 'fill', locator: "getByLabel('Email')", value: 'a@b.c', description: 'email' },
      { action: 'click', locator: "getByRole('button', { name: 'Next' })", description: 'next' },
      { action: 'wait_for_email', value: '{{INBOX}}', description: 'mail' },
      { action: 'assert_visible', locator: "getByText('Done')", description: 'done' },
    ];
    expect(pagesOfSteps(steps, `${base}/signup?ref=ad`)).toEqual([
      { page: '/signup?ref=ad', inferred: true, source: 'start' },
      { page: '/signup?ref=ad', inferred: true, source: 'previous' },
      { page: '/signup?ref=ad', inferred: true, source: 'previous' },
      { page: '/signup?ref=ad', inferred: true, source: 'previous' },
    ]);
  });

  it('knows no page after a mail link, a navigation to a config value, or in a tab a step opened', () => {
    const steps: Step[] = [
      { action: 'open_link', value: '{{EMAIL_LINK}}', description: 'open the mail link' },
      { action: 'click', locator: "getByText('Verify')", description: 'verify' },
      { action: 'navigate', value: '{{SHOP_URL}}/cart', description: 'cart' },
      { action: 'navigate', value: '/cart', description: 'cart' },
      { action: 'click', locator: "getByText('Terms')", description: 'terms', opensPage: true },
      { action: 'click', locator: "getByText('Accept')", description: 'accept', page: 1 },
      { action: 'assert_url', value: '/terms', description: 'terms', page: 1 },
      { action: 'click', locator: "getByText('Pay')", description: 'pay' },
    ];
    expect(pagesOfSteps(steps, `${base}/`).map((p) => [p.page, p.source])).toEqual([
      [null, 'unknown'],
      [null, 'unknown'],
      [null, 'unknown'],
      ['/cart', 'navigate'],
      ['/cart', 'previous'],
      [null, 'unknown'],
      ['/terms', 'assert_url'],
      ['/cart', 'previous'],
    ]);
  });

  it('pageAt: path and query on the origin, the whole URL off it, nothing for a blank tab', () => {
    expect(pageAt(`${base}/orders/7?tab=notes#top`, base)).toBe('/orders/7?tab=notes');
    expect(pageAt('/cart', `${base}/shop/`)).toBe('/cart');
    expect(pageAt('https://pay.example.test/checkout#x', base)).toBe('https://pay.example.test/checkout');
    expect(pageAt('about:blank', base)).toBeUndefined();
    expect(pageAt('chrome-error://chromewebdata/', base)).toBeUndefined();
  });
});
