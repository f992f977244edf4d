import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { canListen, freePort, freePortIn } from '../../src/ports.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

const servers: Server[] = [];
const listen = (port: number) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
    servers.push(server);
  });

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

// A port for a child process is picked here and bound there, seconds later. From the ephemeral range, an outgoing
// connection or another port-0 listener could take it in between (the fault matrix's `proctor api` failed with
// EADDRINUSE in CI so).
describe('ports for child processes', () => {
  it('are below the kernel ephemeral range, free, and all different when many are picked at once', async () => {
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    expect(new Set(ports).size).toBe(200);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(15_000);
      expect(port).toBeLessThan(ephemeralLow);
    }
    // Each can be listened on (nothing held them).
    await Promise.all(ports.slice(0, 20).map(listen));
  });

  it('skip a port something listens on and a port another picker reserved within the minute', async () => {
    // Reservations of their own (the temp folder is read at each pick): none from other files or runs fall here.
    const saved = process.env.TMPDIR;
    const dir = mkdtempSync(join(tmpdir(), 'proctor-ports-test-'));
    process.env.TMPDIR = dir;
    try {
      // base: reserved by its pick; base + 1: listened on here; base + 2: free. Other files' servers listen in this
      // range too, so a base is tried until its next two ports were free.
      let base = 0;
      for (let tries = 0; tries < 20 && !base; tries++) {
        const candidate = await freePort();
        const held = await listen(candidate + 1).then(
          () => true,
          () => false,
        );
        if (held && (await canListen(candidate + 2))) base = candidate;
      }
      expect(base).toBeGreaterThan(0);
      const picks = await Promise.all(Array.from({ length: 5 }, () => freePortIn(base, base + 3, 50)));
      expect(picks.filter((p) => p !== undefined)).toEqual([base + 2]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const pickInChild = (count: number, env: NodeJS.ProcessEnv = process.env) => {
    const pick = `import('./src/ports.ts').then(async (m) => console.log(JSON.stringify(await Promise.all(Array.from({ length: ${count} }, () => m.freePort())))))`;
    return promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', pick], { cwd: process.cwd(), env }).then(
      ({ stdout }) => JSON.parse(stdout) as number[],
    );
  };

  it('are not handed to two processes picking at the same moment', async () => {
    const [a, b] = await Promise.all([pickInChild(100), pickInChild(100)]);
    expect(new Set([...a, ...b]).size).toBe(200);
  });

  it('still come from below the range when there is no folder to reserve them in', async () => {
    // A file where the reservation folder would be: it cannot be made, and the trial listen alone decides.
    const dir = mkdtempSync(join(tmpdir(), 'proctor-ports-test-'));
    writeFileSync(join(dir, 'proctor-ports'), '');
    try {
      const ports = await pickInChild(20, { ...process.env, TMPDIR: dir });
      expect(ports).toHaveLength(20);
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(15_000);
        expect(port).toBeLessThan(ephemeralLow);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
