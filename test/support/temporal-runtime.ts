// Runs before every test file (vitest's setupFiles). Temporal's Runtime is one per process and must be installed
// before the first worker or connection: here it logs at WARN (a worker's state changes are INFO, not news to a
// test) and leaves the signals to vitest. Files share a process (isolate: false), so it is installed once.
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
} catch (err) {
  if (!(err instanceof IllegalStateError)) throw err;
}
