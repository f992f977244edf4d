import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCoverage } from '../../src/domain/coverage.js';
import { RunValues } from '../../src/domain/run-values.js';
import { runAgent } from '../../src/llm/agent.js';
import { createLlm } from '../../src/llm/client.js';
import { useAgentRig } from '../support/agent-rig.js';
import { refOf, tool } from '../support/agent-script.js';
import { serveOverHttp, type ServedApp } from '../support/http-server.js';

// Issue 34: burn-in records on each step the page it acted on (`at`), in real Chromium through the agent loop, so
// the coverage map places a new recording without guessing. A click that leaves the page is on the page it left;
// a navigation and Back are on the page they brought up; a mail or API step is on none.

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

function orders(): Hono {
  return new Hono()
    .get('/', (c) => c.html(page('Home', '<a href="/orders/7?tab=notes">Order 7</a>')))
    .get('/orders/7', (c) =>
      c.html(
        page(
          'Order 7',
          '<form onsubmit="event.preventDefault(); document.querySelector(\'#saved\').textContent = \'Saved\'"><label>Note <textarea name="note"></textarea></label><button>Add note</button></form><p id="saved"></p>',
        ),
      ),
    )
    .get('/settings', (c) => c.html(page('Settings', '<p>Nothing here</p>')));
}

describe('burn-in records the page of each step', () => {
  const rig = useAgentRig();
  let app: ServedApp;
  beforeAll(async () => {
    app = await serveOverHttp(orders());
  });
  afterAll(() => app?.close());

  it('on the pages Chromium was on, and the coverage map counts the recording without inferring', async () => {
    rig.llm.enqueue(
      (r) => tool('click', { ref: refOf(r, 'link "Order 7"'), description: 'Open the order' }),
      (r) => tool('fill', { ref: refOf(r, 'textbox "Note"'), value: 'Call me', description: 'Write a note' }),
      (r) => tool('click', { ref: refOf(r, 'button "Add note"'), description: 'Add it' }),
      () => tool('navigate', { url: '/settings', description: 'Open the settings' }),
      () => tool('go_back', { description: 'Back to the order' }),
      () => tool('assert_text', { text: 'Order 7', description: 'Back on the order' }),
      () => tool('done', { summary: 'Added' }),
    );
    const llm = createLlm({ apiKey: rig.llm.apiKey, baseURL: rig.llm.baseURL, model: 'scripted' }, { maxRetries: 0 })!;
    const result = await rig.pool.withContext({}, async ({ page }) => {
      await page.goto(`${app.url}/`);
      return runAgent(
        page,
        {
          applicationName: 'Orders',
          goal: 'Add a note to order 7',
          expectedResult: 'Back on order 7',
          configNames: [],
        },
        { llm, baseUrl: app.url, values: new RunValues(), maxSteps: 10, timeoutMs: 5_000 },
      );
    });
    expect(result.status, result.failureReason).toBe('COMPLETED');
    expect(result.steps.map((s) => [s.action, s.at])).toEqual([
      ['click', '/'],
      ['fill', '/orders/7?tab=notes'],
      ['click', '/orders/7?tab=notes'],
      ['navigate', '/settings'],
      ['go_back', '/orders/7?tab=notes'],
      ['assert_text', '/orders/7?tab=notes'],
    ]);

    const coverage = computeCoverage(
      [
        { pattern: '/', forms: [] },
        {
          pattern: '/orders/{id}?tab=',
          forms: [
            {
              key: 'note',
              name: 'Note',
              method: 'get',
              action: '',
              fields: [{ label: 'Note', name: 'note', type: 'textarea', required: false }],
              submit: 'Add note',
              search: false,
            },
          ],
        },
        { pattern: '/settings', forms: [] },
      ],
      [{ id: 'rec', name: 'Add a note', steps: result.steps, startUrl: `${app.url}/`, lastPassedAt: null }],
      app.url,
    );
    expect(coverage.patterns.map((p) => [p.pattern, p.visitedBy[0]?.steps, p.assertedBy[0]?.steps])).toEqual([
      ['/', [0], undefined],
      ['/orders/{id}?tab=', [1, 2, 4, 5], [5]],
      ['/settings', [3], undefined],
    ]);
    expect(coverage.forms[0]).toMatchObject({ covered: true, submittedBy: [{ testId: 'rec', steps: [2] }] });
  });
});
