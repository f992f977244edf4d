import { afterAll, beforeAll } from 'vitest';
import { openDashboard, reserveAppUrl, type DashboardBrowser } from './dashboard.js';
import { startFixtureApps, type FixtureApps } from './fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.js';
import { startStack, type Stack, type StackOptions } from './worker-context.js';

// What most end-to-end files start from: the fixture apps, the scripted model over HTTP and the real stack (Temporal
// worker, Postgres, Chromium) that talks to it, and for the files that watch it in a browser, its dashboard. The
// file's own beforeAll, registered after, adds its rows.

export interface ModelStack {
  fixture: FixtureApps;
  llm: ScriptedLlm;
  stack: Stack;
}

type ModelStackOptions = Omit<StackOptions, 'llm' | 'appUrl'>;

/**
 * Registers the file's beforeAll/afterAll: the fixture apps and the model, then the stack on that model with
 * `options` (with `dashboard`, served at a reserved app URL and opened in the dashboard's Chromium, nobody signed in
 * yet); all stopped after the tests (the file's own afterAll, registered after, runs first). The fields are set once
 * beforeAll ran.
 */
export function useModelStack(options?: ModelStackOptions): ModelStack;
export function useModelStack(
  options: ModelStackOptions & { dashboard: true },
): ModelStack & { dash: DashboardBrowser };
export function useModelStack({ dashboard, ...options }: ModelStackOptions & { dashboard?: true } = {}): ModelStack & {
  dash?: DashboardBrowser;
} {
  const rig = {} as ModelStack & { dash?: DashboardBrowser };
  beforeAll(async () => {
    const appUrl = dashboard ? await reserveAppUrl() : undefined;
    [rig.fixture, rig.llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
    rig.stack = await startStack({ ...options, llm: rig.llm, appUrl });
    if (appUrl) rig.dash = await openDashboard(rig.stack.app, appUrl);
  }, 120_000);
  afterAll(async () => {
    await rig.dash?.close();
    await rig.stack?.close();
    await Promise.all([rig.fixture?.stop(), rig.llm?.stop()]);
  });
  return rig;
}
