import { afterAll, beforeAll } from 'vitest';
import { startFixtureApps, type FixtureApps } from './fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.js';
import { startStack, type Stack, type StackOptions } from './worker-context.js';

// What most end-to-end files start from: the fixture apps, the scripted model over HTTP and the real stack (Temporal
// worker, Postgres, Chromium) that talks to it. The file's own beforeAll, registered after, adds its rows.

export interface ModelStack {
  fixture: FixtureApps;
  llm: ScriptedLlm;
  stack: Stack;
}

/**
 * Registers the file's beforeAll/afterAll: the fixture apps and the model, then the stack on that model with
 * `options`; all stopped after the tests (the file's own afterAll, registered after, runs first). The fields are
 * set once beforeAll ran.
 */
export function useModelStack(options: Omit<StackOptions, 'llm'> = {}): ModelStack {
  const rig = {} as ModelStack;
  beforeAll(async () => {
    [rig.fixture, rig.llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
    rig.stack = await startStack({ ...options, llm: rig.llm });
  }, 120_000);
  afterAll(async () => {
    await rig.stack?.close();
    await Promise.all([rig.fixture?.stop(), rig.llm?.stop()]);
  });
  return rig;
}
