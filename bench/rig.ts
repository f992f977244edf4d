// The set-up the browser benchmarks share (replay, quality-signals, discovery-visit, heal, burn-in-prompt,
// model-page-prompts): the fixture apps and one browser pool as the worker builds it (bench/support.ts) and, for
// those that drive the model, the scripted OpenAI-compatible server. Everything is closed once the benchmark's
// body ends, however it ends: the pool first, then the servers it was talking to.
import type { BrowserPool } from '../src/browser/context/pool.js';
import { startFixtureApps, type FixtureApps } from '../test/support/fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from '../test/support/scripted-llm.js';
import { createBenchPool } from './support.js';

export interface BrowserRig {
  fixture: FixtureApps;
  /** One Chromium, one context at a time. */
  pool: BrowserPool;
}

export interface LlmRig extends BrowserRig {
  llm: ScriptedLlm;
}

/** Runs `body` with the fixture apps and a one-browser pool, and closes both after it. */
export async function withBrowserRig<T>(body: (rig: BrowserRig) => Promise<T>): Promise<T> {
  const fixture = await startFixtureApps();
  try {
    const pool = createBenchPool(1);
    try {
      return await body({ fixture, pool });
    } finally {
      await pool.close();
    }
  } finally {
    await fixture.stop();
  }
}

/** As withBrowserRig, with the scripted model's server as well. */
export async function withLlmRig<T>(body: (rig: LlmRig) => Promise<T>): Promise<T> {
  const llm = await startScriptedLlm();
  try {
    return await withBrowserRig((rig) => body({ ...rig, llm }));
  } finally {
    await llm.stop();
  }
}
