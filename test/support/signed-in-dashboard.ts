import { afterAll, beforeAll } from 'vitest';
import { openDashboard, reserveAppUrl, type DashboardBrowser } from './dashboard.js';
import { startStack, type Stack, type StackOptions } from './worker-context.js';
import { seedProject } from '../../src/db/queries/admin.js';

// What the dashboard tests on the whole stack start from: the real app on Postgres (with no worker unless the suite
// runs tests: the setup-form tests do not), its dashboard in Chromium signed in with the project's token, and a
// second project whose session must see none of it.

export interface SignedInDashboard {
  stack: Stack;
  dash: DashboardBrowser;
  other: Awaited<ReturnType<typeof seedProject>>;
  /** The text of every page and fragment the signed-in page got, from sign-in on (for "no secret came back"). */
  answers: Promise<string>[];
}

/**
 * Registers the suite's beforeAll/afterAll; the fields are set once beforeAll ran. `stack` is the stack's options
 * (default: no worker); `beforeSignIn` runs with the stack up and nobody signed in yet (to add the rows the suite
 * starts from, say), within `timeoutMs` for the whole set-up.
 */
export function useSignedInDashboard(
  opts: {
    stack?: StackOptions;
    beforeSignIn?: (rig: SignedInDashboard) => void | Promise<void>;
    timeoutMs?: number;
  } = {},
): SignedInDashboard {
  const rig = { answers: [] } as unknown as SignedInDashboard;
  beforeAll(async () => {
    const appUrl = await reserveAppUrl();
    rig.stack = await startStack({ worker: false, ...opts.stack, appUrl });
    rig.dash = await openDashboard(rig.stack.app, appUrl);
    rig.other = await seedProject(rig.stack.db, { organization: 'Globex', project: 'Elsewhere' });
    rig.dash.page.on('response', (r) => {
      if (['document', 'fetch', 'xhr'].includes(r.request().resourceType())) rig.answers.push(r.text().catch(() => ''));
    });
    await opts.beforeSignIn?.(rig);
    await rig.dash.signIn(rig.stack.tenant.token);
  }, opts.timeoutMs ?? 120_000);
  afterAll(async () => {
    await rig.dash?.close();
    await rig.stack?.close();
  });
  return rig;
}
