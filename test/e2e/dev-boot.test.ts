import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { startWorkflow } from '../../src/temporal/lifecycle.js';
import { taskQueues, workflowIds, type Workflows } from '../../workflows/shared.js';
import { freePort } from '../support/net.js';
import { hasMetric, scrape, sumOf } from '../support/prometheus-text.js';

interface Banner {
  apiUrl: string;
  docsUrl: string;
  uiUrl: string;
  temporal: string;
  token: string;
}

function startDev(
  dataDir: string,
  port: number,
  uiPort: number,
): { child: ChildProcess; banner: Promise<Banner>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'dev'], {
    env: {
      ...process.env,
      PORT: String(port),
      TEMPORAL_UI_PORT: String(uiPort),
      PROCTOR_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const banner = new Promise<Banner>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const field = (label: string) => new RegExp(`^\\s*${label}\\s{2,}(\\S+)`, 'm').exec(out)?.[1];
      const token = field('API token');
      if (token)
        resolve({
          apiUrl: field('API')!,
          docsUrl: field('API docs')!,
          uiUrl: field('Temporal UI')!,
          temporal: field('Temporal')!,
          token,
        });
    });
    child.once('exit', (code) => reject(new Error(`proctor dev exited with ${code} before it was ready:\n${out}`)));
  });
  return { child, banner, output: () => out };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

/** Processes whose command line mentions the data dir: the dev server's Temporal child would. */
function processesUsing(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(marker)) found.push(`${pid}: ${cmd}`);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

describe('proctor dev', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'proctor-dev-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('boots the whole stack, answers healthy, runs a workflow, and stops with nothing left behind', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const dev = startDev(dataDir, port, uiPort);
    try {
      const banner = await dev.banner;
      expect(banner.apiUrl).toBe(`http://127.0.0.1:${port}/v1`);
      expect(banner.docsUrl).toBe(`http://127.0.0.1:${port}/docs`);
      expect(banner.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
      expect(banner.token).toMatch(/^prt_/);

      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      const body = await health.json();
      expect(body).toMatchObject({
        status: 'ok',
        database: { ok: true },
        temporal: { ok: true },
        workers: { taskQueue: 'proctor' },
      });

      const apps = await fetch(`${banner.apiUrl}/applications`, {
        headers: { authorization: `Bearer ${banner.token}` },
      });
      expect(await apps.json()).toEqual({ applications: [] });
      expect((await fetch(banner.uiUrl)).status).toBe(200);

      // The worker inside `proctor dev` picks up work from Temporal and reaches the database.
      const connection = await Connection.connect({ address: banner.temporal });
      try {
        const client = new Client({ connection });
        const workflowId = workflowIds.systemCheck(`boot-${Date.now()}`);
        await startWorkflow({ taskQueue: taskQueues.main, get: async () => client }, 'systemCheck', {
          workflowId,
          args: [{ nonce: 'boot-test' }],
        });
        const result = await client.workflow.getHandle<Workflows['systemCheck']>(workflowId).result();
        expect(result).toMatchObject({ nonce: 'boot-test', databaseOk: true });
        // The worker that just ran it is polling: /healthz says so.
        const after = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
        expect(after.workers.pollers).toBeGreaterThanOrEqual(1);
        // One /metrics on the API's port for the whole process: Proctor's, the backlog, and the worker's core.
        const metrics = await scrape(`http://127.0.0.1:${port}/metrics`);
        expect(hasMetric(metrics, 'proctor_task_queue_backlog')).toBe(true);
        expect(hasMetric(metrics, 'proctor_browser_contexts_limit')).toBe(true);
        expect(sumOf(metrics, 'temporal_workflow_completed_total', { workflow_type: 'systemCheck' })).toBe(1);
      } finally {
        await connection.close();
      }
    } finally {
      expect(await stop(dev.child)).toBe(0);
    }
    expect(processesUsing(dataDir)).toEqual([]);
  }, 120_000);

  it('keeps its data across restarts: the same dev token still works', async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const first = readFileSync(join(dataDir, 'dev-project.json'), 'utf8');
    const dev = startDev(dataDir, port, uiPort);
    try {
      const banner = await dev.banner;
      expect(JSON.parse(first).token).toBe(banner.token);
      const res = await fetch(`${banner.apiUrl}/applications`, {
        headers: { authorization: `Bearer ${banner.token}` },
      });
      expect(res.status).toBe(200);
    } finally {
      expect(await stop(dev.child)).toBe(0);
    }
    expect(processesUsing(dataDir)).toEqual([]);
  }, 120_000);
});
