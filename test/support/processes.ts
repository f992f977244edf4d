// Processes as Linux's /proc shows them: a process's CPU time, and the processes below it. The benchmarks read what
// their workers and browsers cost with these (bench/plan-run.ts, bench/observability.ts), the suite what each test
// file costs (test/support/file-times.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// Read once, when first needed: importing this module (test/support/file-times.ts is a setup file of every test file)
// starts no process.
let ticks: number | undefined;
const clockTicks = () =>
  (ticks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100);

/**
 * A process's name and CPU seconds from /proc/<pid>/stat: its own (user + system) and that of its children it has
 * reaped (a reaped child's time lands in its parent's); undefined once it has exited.
 */
export function processCpu(pid: number): { comm: string; own: number; reaped: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ...": comm may contain spaces and parentheses, so fields are read after the last ')'.
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { comm, own: (f[11]! + f[12]!) / clockTicks(), reaped: (f[13]! + f[14]!) / clockTicks() };
}

/** All descendants of `root` (children, grandchildren, ...), found through the parent pid in /proc/<pid>/stat. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses, so parse after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
