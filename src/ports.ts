import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Ports handed to another process (a Temporal server, PostgreSQL, MinIO, a `proctor api`) to listen on later.
// Asking the OS for a free one (port 0) and closing it returns a port from the kernel's ephemeral range, which every
// outgoing connection and every other port-0 listener draws from too: by the time the child binds it, it can be
// taken (EADDRINUSE, seen in CI). So they are picked below that range, where the kernel gives out nothing by itself,
// and reserved for a minute across processes, so two pickers at the same moment cannot both have one.

const lowest = 15_000;
const reservedForMs = 60_000;

/** The low end of the kernel's ephemeral range (Linux reads it; elsewhere the Linux default, below macOS's). */
function readEphemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // Not Linux.
  }
  return 32_768;
}

// Read once, on the first pick.
let ephemeralLowRead: number | undefined;
const ephemeralLow = () => (ephemeralLowRead ??= readEphemeralLow());

/** Whether a loopback listener can take the port now. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The folder the reservations are kept in, made if need be; undefined when none can be (a read-only temp folder, a
 * file in the folder's place), and then the trial listen alone decides. Read at each call, not once: a test can give
 * its picks a folder of their own.
 */
function reservationFolder(): string | undefined {
  const folder = join(tmpdir(), 'proctor-ports');
  try {
    mkdirSync(folder, { recursive: true });
    return folder;
  } catch {
    return undefined;
  }
}

/** Takes the port's reservation file unless another picker took it within the last minute. */
function reserve(folder: string | undefined, port: number): boolean {
  if (!folder) return true;
  const file = join(folder, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    // A folder that cannot be written to: the trial listen alone decides.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true;
    // Held: by a recent picker (keep off), or by one long ago whose process has bound the port or given it up
    // (the trial listen tells which), so the reservation is renewed.
    try {
      if (Date.now() - statSync(file).mtimeMs < reservedForMs) return false;
      const now = new Date();
      utimesSync(file, now, now);
      return true;
    } catch {
      return false;
    }
  }
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port')),
      );
    });
  });
}

/** A port in [low, high) that is free now and reserved for this caller; undefined when `attempts` tries find none. */
export async function freePortIn(low: number, high: number, attempts = 100): Promise<number | undefined> {
  const folder = reservationFolder();
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (reserve(folder, port) && (await canListen(port))) return port;
  }
  return undefined;
}

/**
 * A loopback port free now, for another process to listen on: below the ephemeral range and reserved for a minute
 * (see the top of this file). Falls back to one from the OS when that range is too narrow or full.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  return (high - lowest > 1_000 ? await freePortIn(lowest, high) : undefined) ?? anyFreePort();
}

/** The preferred port when it is free (so bookmarks keep working), else any free one. */
export async function freePortNear(preferred: number): Promise<number> {
  if (preferred > 0 && (await canListen(preferred))) return preferred;
  return freePort();
}
