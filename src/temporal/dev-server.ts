import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freePort } from '../ports.js';
import { devServerSearchAttributes } from './search-attributes.js';

export interface DevServer {
  address: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  /** The `temporal` CLI; without it the SDK downloads the CLI (laptops with internet). */
  executable?: string;
  /** SQLite file that keeps workflows across restarts; in memory when absent. */
  dbFilename?: string;
  namespace?: string;
  port?: number;
  uiPort?: number;
  /** More `temporal server start-dev` flags (tests: `--dynamic-config-value` to make limits small). */
  extraArgs?: string[];
}

/** Starts `temporal server start-dev` as a child process owned by this one (stopped on `stop()`). */
export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: opts.executable ? { type: 'existing-path', path: opts.executable } : { type: 'cached-download' },
      dbFilename: opts.dbFilename,
      namespace: opts.namespace,
      ip: '127.0.0.1',
      // Our pick, not the SDK's: it would take one from the ephemeral range (src/ports.ts says why not).
      port: opts.port ?? (await freePort()),
      ui: opts.uiPort !== undefined,
      uiPort: opts.uiPort,
      log: { format: 'pretty', level: 'error' },
      extraArgs: opts.extraArgs,
      // `--search-attribute Name=Type` for each of Proctor's (a persistent database keeps them; adding again is a no-op).
      searchAttributes: devServerSearchAttributes,
    },
  });
  return {
    address: env.address,
    uiUrl: opts.uiPort !== undefined ? `http://127.0.0.1:${opts.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}
