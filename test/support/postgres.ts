import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from './net.js';

export interface PostgresCluster {
  url: string;
  /** The same server through its Unix socket (no TCP/IP stack), for clients on this machine. */
  socketUrl: string;
  /** Stops the server (fast shutdown: clients are disconnected) and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A private PostgreSQL cluster on a free port in a temporary directory. As root (CI here) the server
 * runs as the `postgres` system user, since PostgreSQL refuses to run as root.
 */
export async function startPostgres(binDir: string): Promise<PostgresCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'proctor-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const pwent = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const uid = Number(pwent.stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (cmd: string, args: string[]) =>
    (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];

  const [initCmd, initArgs] = run(join(binDir, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);

  const [cmd, args] = run(join(binDir, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=300',
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const launch = async () => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`postgres exited: ${stderr}`);
        const client = new pg.Client({ connectionString: url });
        try {
          await client.connect();
          return true;
        } catch {
          return false;
        } finally {
          await client.end().catch(() => {});
        }
      },
      30_000,
      'postgres to accept connections',
    );
    return child;
  };
  const shutdown = async (server: ChildProcess) => {
    if (server.exitCode !== null) return;
    const exited = new Promise((r) => server.once('exit', r));
    // Signal the postmaster itself: runuser does not forward SIGINT. SIGINT = fast shutdown.
    const postmasterPid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmasterPid, 'SIGINT');
    await exited;
  };
  let child = await launch();

  return {
    url,
    socketUrl: `postgres://postgres@/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
    async restart() {
      await shutdown(child);
      child = await launch();
    },
    async stop() {
      await shutdown(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh database in the cluster for one test file, so no test sees another's rows; a copy of `template` when
 * given (the suite's migrated database: copying it takes a fraction of migrating anew).
 */
export async function createDatabaseIn(clusterUrl: string, name: string, template?: string): Promise<string> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  } finally {
    await client.end();
  }
  const url = new URL(clusterUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
