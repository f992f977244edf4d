import { describe, expect, it } from 'vitest';
import type { Step } from '../../src/domain/steps.js';
import { useServedPage } from '../support/served-page.js';

// An assert_text looks for its scope only for the probe's time, then for its text on the whole page. A scope inside
// an iframe that came after the probe (a frame's document loads later than the page, on a busy machine later still)
// was then looked for on the top page, which holds none of the frame's text: a good build failed (the trust matrix
// in a full run, "the page showed: Account" while the frame said what was expected). The whole page is now that of
// the step's frame, at every depth; a text that is not there still fails, within the step's time.

const frame = (title: string, body: string) =>
  `<iframe title="${title}" srcdoc="${body.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe>`;

const page = `<!doctype html><title>Account</title>
<h1>Account</h1>
<main id="slot"></main>
<script>
  // Later than the probe: the page has loaded and its first checks have run before any of these exist.
  setTimeout(() => {
    document.getElementById('slot').innerHTML = ${JSON.stringify(
      frame('Profile', '<p id="log">Email address: ada@example.com</p>') +
        frame('Billing', frame('Card', '<p id="log">Card saved</p>')) +
        '<p id="late">Settings saved</p>',
    )};
  }, 800);
</script>`;

const served = useServedPage(page);

const shows = (locator: string, text: string): Step => ({
  action: 'assert_text',
  locator,
  value: text,
  description: `shows ${text}`,
});

const profile = `locator('iframe[title="Profile"]').contentFrame().`;
const card = `locator('iframe[title="Billing"]').contentFrame().locator('iframe[title="Card"]').contentFrame().`;

describe('an assert_text whose scope comes after the probe', () => {
  const replay = (step: Step) => served.replay([step], { timeoutMs: 3_000, probeMs: 400 });

  it.each([
    ['in an iframe', shows(`${profile}locator('#log')`, 'Email address: ada@example.com')],
    ['in an iframe in an iframe', shows(`${card}locator('#log')`, 'Card saved')],
    ['on the page itself', shows(`locator('#late')`, 'Settings saved')],
  ])('%s: passes when its text is there', async (_where, step) => {
    const result = await replay(step);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('PASSED');
  });

  // What the failure quotes as shown is the frame's text, or the top page's when the frame never came.
  it.each([
    [
      'in an iframe',
      shows(`${profile}locator('#log')`, 'Email address: bob@example.com'),
      'Email address: ada@example.com',
    ],
    ['in an iframe in an iframe', shows(`${card}locator('#log')`, 'Card declined'), 'Card saved'],
    [
      'in an iframe that never comes',
      shows(`locator('iframe[title="Gone"]').contentFrame().locator('#log')`, 'Saved'),
      'Settings saved',
    ],
  ])('%s: fails as an assertion when its text is not, within the step time', async (_where, step, shown) => {
    const result = await replay(step);
    expect(result.status).toBe('FAILED');
    expect(result.failureKind).toBe('assertion');
    expect(result.error).toContain(`expected the text "${step.value}" on the page`);
    expect(result.error).toMatch(new RegExp(`the page showed: "[^"]*${shown}`));
    // Not Playwright's 30 s default for a read of an element that is not there.
    expect(result.durationMs).toBeLessThan(15_000);
  });
});
