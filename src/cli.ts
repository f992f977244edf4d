import { ConfigError } from './config.js';

const usage = `proctor <command>

  dev       API + worker + embedded PGlite + Temporal dev server, for a laptop
  api       the HTTP API (needs DATABASE_URL, TEMPORAL_ADDRESS)
  worker    the Temporal worker: workflows and activities (needs DATABASE_URL, TEMPORAL_ADDRESS)
  migrate   apply database migrations (needs DATABASE_URL) and register Temporal search attributes (with TEMPORAL_ADDRESS)
  admin     organizations, projects and tokens: proctor admin --help
  tunnel    expose local ports to the browser agents: proctor tunnel --port 3000
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    // Loaded on demand: `proctor admin` should not pay for Playwright, Temporal's worker and the LLM client.
    case 'dev':
      return (await import('./cli/serve.js')).runDev();
    case 'api':
      return (await import('./cli/serve.js')).runApi();
    case 'worker':
      return (await import('./cli/worker.js')).runWorker();
    case 'migrate':
      return (await import('./cli/serve.js')).runMigrate();
    case 'admin':
      return (await import('./cli/admin.js')).runAdmin(rest);
    case 'tunnel':
      return (await import('./cli/tunnel.js')).runTunnel(rest);
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(usage);
      return command === undefined ? 1 : 0;
    default:
      process.stderr.write(`unknown command: ${command}\n\n${usage}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      err instanceof ConfigError
        ? `${err.message}\n`
        : `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
