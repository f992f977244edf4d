// Tab steps act on the browser session, not on an element: BrowserSession (session/session.ts) performs them when it
// replays or records a step, since it holds the tabs; a kind's perform is reached only outside a session.
import { z } from 'zod';
import { quote } from '../../domain/locators.js';
import { StepFailedError } from './errors.js';
import { defineStepKind } from './kind.js';

const performedBySession = async (): Promise<void> => {
  throw new StepFailedError('a tab step runs in a browser session, which holds the tabs');
};

export const switchTab = defineStepKind({
  tool: 'switch_tab',
  description: 'Switch to the tab whose URL or title contains tab',
  args: z.object({ tab: z.string() }),
  actions: ['switch_tab'],
  example: { tab: 'Help' },
  toStep: ({ tab }, { description }) => ({ action: 'switch_tab', value: tab, description }),
  perform: performedBySession,
  exportStatement: (step) => `page = await findTab(pages, ${quote(step.value ?? '')});`,
});

export const closeTab = defineStepKind({
  tool: 'close_tab',
  description: 'Close the current tab',
  args: z.object({}),
  actions: ['close_tab'],
  example: {},
  toStep: (_args, { description }) => ({ action: 'close_tab', description }),
  perform: performedBySession,
  exportStatement: () => 'await page.close();',
});
