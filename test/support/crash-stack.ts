// The set-up of a file that SIGKILLs a `proctor worker` process mid-work and starts another (test/e2e/*-crash):
// a stack with no worker of its own, a scripted LLM, the fixture apps when asked, and worker processes on them that
// share one blob directory, so the next worker finishes what the killed one held.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startFixtureApps, type FixtureApps } from './fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.js';
import { startStack, type Stack } from './worker-context.js';
import { killWorker, startWorkerProcess, workerProcessEnv, type WorkerProcess } from './worker-process.js';

export interface CrashStack {
  /** Filled before the file's tests run, as is `llm` (and `fixture` when asked for). */
  stack: Stack;
  llm: ScriptedLlm;
  /** The blob directory the workers share. */
  blobDir: string;
  /** Starts a `proctor worker` process on the stack and the LLM; one still running after the tests is killed. */
  startWorker(): WorkerProcess;
}

/** A crash stack, with the fixture apps when they were asked for. */
export type CrashStackWith<WithFixture extends boolean> = CrashStack &
  (WithFixture extends true ? { fixture: FixtureApps } : Record<never, never>);

/**
 * Starts the stack and the LLM (and the fixture apps) before the file's tests; after them kills the workers still
 * running, closes what it started and removes the blob directory. `env` adds worker settings.
 */
export function useCrashStack<WithFixture extends boolean = false>(options: {
  name: string;
  /** true: the fixture apps too, as `fixture`. */
  fixture?: WithFixture;
  env?: Record<string, string>;
}): CrashStackWith<WithFixture> {
  const blobDir = mkdtempSync(join(tmpdir(), `proctor-${options.name}-`));
  const workers: WorkerProcess[] = [];
  const crash = {
    blobDir,
    startWorker() {
      const w = startWorkerProcess(
        workerProcessEnv({ stack: crash.stack, llm: crash.llm, blobDir, extra: options.env }),
      );
      workers.push(w);
      return w;
    },
  } as CrashStack & { fixture?: FixtureApps };
  beforeAll(async () => {
    const [llm, fixture] = await Promise.all([startScriptedLlm(), options.fixture ? startFixtureApps() : undefined]);
    Object.assign(crash, { llm, fixture, stack: await startStack({ worker: false }) });
  }, 60_000);
  afterAll(async () => {
    for (const w of workers) await killWorker(w);
    await crash.stack?.close();
    await Promise.all([crash.fixture?.stop(), crash.llm?.stop()]);
    rmSync(blobDir, { recursive: true, force: true });
  });
  return crash as CrashStackWith<WithFixture>;
}
