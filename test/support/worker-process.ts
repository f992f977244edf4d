// A `proctor worker` in a process of its own, for the tests that SIGKILL a worker mid-work and check that nothing
// is lost or done twice when another one takes over.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { waitFor } from './net.js';
import { proctorArgs } from './proctor-cli.js';
import type { ScriptedLlm } from './scripted-llm.js';
import type { Stack } from './worker-context.js';
import { loadMasterKey } from '../../src/db/secrets.js';

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with its exit code (null when a signal ended it) once it has exited. */
  exited: Promise<number | null>;
  /** Everything it printed, for the message of a test that fails. */
  output: () => string;
}

/** The worker leads its own process group, so SIGKILL to the group takes everything it started. */
export const startWorkerProcess = (env: Record<string, string>): WorkerProcess => startProctorProcess('worker', env);

/** `proctor <command>` in a process of its own, leading its own process group (see startWorkerProcess). */
export function startProctorProcess(command: 'api' | 'worker' | 'migrate', env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, proctorArgs(command), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

export const isRunning = (w: WorkerProcess) => w.child.exitCode === null && w.child.signalCode === null;

/** SIGKILL, as a crash would: no shutdown, no chance to finish what it holds. Resolves once it has exited. */
export async function killWorker(w: WorkerProcess): Promise<void> {
  if (!isRunning(w)) return;
  try {
    process.kill(-w.child.pid!, 'SIGKILL');
  } catch {
    return; // gone already
  }
  await w.exited;
}

/** `waitFor`, failing at once with the worker's output when the worker exits before `check` holds. */
export function waitWhileRunning(
  w: WorkerProcess,
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const checkRunning = async () => {
    if (!isRunning(w))
      throw new Error(`the worker exited early (${w.child.exitCode ?? w.child.signalCode}):\n${w.output()}`);
    return check();
  };
  return waitFor(checkRunning, timeoutMs, what);
}

/**
 * The environment of a `proctor worker` on the test's stack and scripted LLM (none: the worker has no model): the
 * same database, Temporal queue and blob directory as the API under test, so a second worker finishes what the
 * killed one held. `extra` adds or overrides settings.
 */
export function workerProcessEnv(options: {
  stack: Stack;
  llm?: ScriptedLlm;
  blobDir: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  const { stack, llm, blobDir, extra } = options;
  return {
    DATABASE_URL: stack.databaseUrl!,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: stack.taskQueue,
    PROCTOR_DATA_DIR: blobDir,
    // The secrets this test's process sealed (a Git App's key, say) open only with the same master key.
    PROCTOR_MASTER_KEY: loadMasterKey().toString('base64'),
    PROCTOR_BLOB_DIR: blobDir,
    PROCTOR_BLOB_SECRET: randomBytes(32).toString('hex'),
    ...(llm && {
      OPENAI_API_KEY: llm.apiKey,
      OPENAI_BASE_URL: llm.baseURL,
      PROCTOR_LLM_MODEL: 'scripted',
      // No startup probe: its requests would take the script's replies.
      PROCTOR_LLM_TOOL_MODE: 'native',
    }),
    LOG_LEVEL: 'warn',
    // A free port: files that run at once each start workers, and the default (9464) would be taken twice.
    PROCTOR_METRICS_PORT: '0',
    // The suite's bundle: a worker that bundled its own would spend seconds of CPU before it polls.
    PROCTOR_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    ...extra,
  };
}
