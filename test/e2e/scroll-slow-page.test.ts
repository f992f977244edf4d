import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { useServedPage } from '../support/served-page.js';

// A scroll until a text shows has its own budget (scrollUntilTextMs), longer than a step's timeout, because a long
// list takes many scrolls. Each scroll used to be one call bounded by the step's timeout: a page slow to answer one
// call (here a page busy 400 ms of every 450, in a full run a starved machine) failed at once, while the list was
// still moving towards the text (a recording stopped at row 150 of 250, "locator.evaluate: Timeout 3000ms
// exceeded"). Each call now has what is left of the budget, and a text that is not in the list still fails at the
// list's end.

// A virtualized list box of 100 rows: only the rows in view are in the document, drawn on each scroll. Once scrolled,
// the page's main thread is busy 400 ms of every 450, so a call into it may wait longer than a step's timeout before
// it can even find the list.
const page = `<!doctype html><title>Rows</title>
<div role="listbox" aria-label="Rows" id="box" style="height: 200px; overflow: auto">
  <div id="spacer" style="position: relative; height: 2000px"></div>
</div>
<script>
  const box = document.getElementById('box');
  const spacer = document.getElementById('spacer');
  const draw = () => {
    const first = Math.floor(box.scrollTop / 20);
    spacer.innerHTML = Array.from({ length: 12 }, (_, i) => first + i)
      .filter((n) => n < 100)
      .map((n) => '<div role="option" style="position: absolute; top: ' + n * 20 + 'px; height: 20px">Row ' + (n + 1) + '</div>')
      .join('');
  };
  box.addEventListener('scroll', draw);
  const busy = () => {
    for (const end = Date.now() + 400; Date.now() < end; );
  };
  box.addEventListener('scroll', () => {
    if (window.busy) return;
    window.busy = setInterval(busy, 450);
    setTimeout(busy, 0);
  });
  draw();
</script>`;

const served = useServedPage(page);

const scrollTo = (text: string): Step => ({
  action: 'scroll',
  locator: "getByRole('listbox', { name: 'Rows' })",
  scroll: { direction: 'down', untilText: text },
  description: `Scroll the list to ${text}`,
  target: { role: 'listbox', name: 'Rows' },
});

describe('a scroll until a text shows, on a page slow to answer', () => {
  // The page's busy spells (400 ms) are longer than the step's own timeout (300 ms).
  const replay = (step: Step) => served.replay([step], { timeoutMs: 300, probeMs: 200 });

  it(
    'reaches a row many scrolls down, although one call can take longer than the step timeout',
    { timeout: 30_000 },
    async () => {
      const result = await replay(scrollTo('Row 90'));
      expect(result.error).toBeUndefined();
      expect(result.status).toBe('PASSED');
    },
  );

  it('fails at the end of the list for a row the list does not have', { timeout: 60_000 }, async () => {
    const result = await replay(scrollTo('Row 999'));
    expect(result.status).toBe('FAILED');
    expect(result.error).toMatch(/"Row 999" did not appear: scrolled down to the end of the container/);
  });
});
