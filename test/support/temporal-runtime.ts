// Runs before every test file (vitest's setupFiles). Temporal's Runtime is one per process and must be installed
// before the first worker or connection: here it leaves the signals to vitest, and logs at the SDK's default level
// (INFO), which test/e2e/secrets-everywhere.test.ts reads to prove that no secret reaches the SDK's logs. Installed
// once per process, whatever ran in it before.
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('INFO'), shutdownSignals: [] });
} catch (err) {
  if (!(err instanceof IllegalStateError)) throw err;
}
