import { afterAll, beforeAll } from 'vitest';
import type { BrowserPool } from '../../src/browser/context/pool.js';
import { createBenchPool } from '../../bench/support.js';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.js';

/**
 * For the tests of one describe block that run the agent loop directly: the scripted LLM server and a one-context
 * browser pool, both closed after the tests. The fields are set before the first test runs.
 */
export function useAgentRig(): { llm: ScriptedLlm; pool: BrowserPool } {
  const rig = {} as { llm: ScriptedLlm; pool: BrowserPool };
  beforeAll(async () => {
    rig.llm = await startScriptedLlm();
    rig.pool = createBenchPool(1);
  });
  afterAll(async () => {
    await rig.pool?.close();
    await rig.llm?.stop();
  });
  return rig;
}
