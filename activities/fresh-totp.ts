import { setTimeout as sleep } from 'node:timers/promises';
import { cancellationSignal, withHeartbeats } from './heartbeat.js';
import type { ExecutionContext } from '../src/db/queries/execution.js';
import { msUntilFreshTotp } from '../src/domain/recording-check.js';
import type { Step } from '../src/domain/steps.js';
import { parseTotp } from '../src/domain/totp.js';

/**
 * Right after a recording (or a replay) typed a TOTP code, waits until a new one is current: a site refuses a code
 * used twice. A resume-from chain may sign in with a TOTP code as well: then every TOTP config of the test counts.
 */
export async function waitForFreshTotp(ctx: ExecutionContext, steps: Step[]): Promise<void> {
  const periods = Object.fromEntries(
    ctx.totpNames.flatMap((name) => (ctx.configs[name] ? [[name, parseTotp(ctx.configs[name]).period] as const] : [])),
  );
  const wait = msUntilFreshTotp(steps, periods, Date.now(), ctx.testCase.resumeFromId ? ctx.totpNames : []);
  if (wait > 0)
    await withHeartbeats(
      (progress) => (
        progress({ phase: 'waiting for a fresh TOTP code', ms: wait }),
        sleep(wait, undefined, { signal: cancellationSignal() })
      ),
    );
}
