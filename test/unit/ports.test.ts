import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, freePortIn } from '../../src/ports.js';

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
    const base = await freePort();
    await listen(base + 1);
    // base itself is reserved by the pick above; base + 1 is in use; base + 2 is the only one left.
    const picks = await Promise.all(Array.from({ length: 5 }, () => freePortIn(base, base + 3, 50)));
    const got = picks.filter((p) => p !== undefined);
    expect(got).toEqual([base + 2]);
  });

  it('are not handed to two processes picking at the same moment', async () => {
    const pick = `import('./src/ports.ts').then(async (m) => console.log(JSON.stringify(await Promise.all(Array.from({ length: 100 }, () => m.freePort())))))`;
    const run = () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', pick], { cwd: process.cwd() }).then(
        ({ stdout }) => JSON.parse(stdout) as number[],
      );
    const [a, b] = await Promise.all([run(), run()]);
    expect(new Set([...a, ...b]).size).toBe(200);
  });
});
