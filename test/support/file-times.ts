// What each test file costs, hooks included: with PROCTOR_FILE_TIMES=<file>, a line of JSON per test file is appended
// to <file> (a setup file of every project; without the variable it does nothing). Vitest's JSON reporter times a
// file by its tests alone, so a file whose work is in `beforeAll` reads as 0 s there: the trust matrix read 0 s while
// it took about 190 s and 250 CPU-s alone, and so started last (docs/testing.md, "Keeping it fast").
//
// Each line: `wall` (first hook to last, seconds); `cpu`, this process's and that of the processes it has waited for;
// `children` by kind (Chromium, Postgres, spawned `proctor` processes, …), the processes it started that still run
// after the file's last test, read before its `afterAll` closes them (a closed Chromium's renderers take their CPU
// with them).
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { descendants, processCpu } from './processes.js';

const out = process.env.PROCTOR_FILE_TIMES;

const kinds: [string, RegExp][] = [
  ['chromium', /chrom/],
  ['postgres', /postgres/],
  ['temporal', /temporal/],
  ['minio', /minio/],
  ['proctor', /proctor/],
  ['python', /python|schemathesis/],
];
const kindOf = (pid: number) => {
  const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  return kinds.find(([, re]) => re.test(cmd))?.[0] ?? 'other';
};

/** This process's CPU, and its descendants' by kind (each with the CPU of the children it has reaped). */
function cpuNow(): { cpu: number; children: Record<string, number> } {
  const self = processCpu(process.pid);
  const children: Record<string, number> = {};
  for (const pid of descendants(process.pid)) {
    try {
      const cpu = processCpu(pid);
      if (!cpu) continue;
      const kind = kindOf(pid);
      children[kind] = (children[kind] ?? 0) + cpu.own + cpu.reaped;
    } catch {
      // It exited while it was read.
    }
  }
  return { cpu: self ? self.own + self.reaped : 0, children };
}

if (out && process.platform === 'linux') {
  let start: ReturnType<typeof cpuNow> & { at: number };
  let last: ReturnType<typeof cpuNow> | undefined;
  beforeAll(() => {
    start = { ...cpuNow(), at: Date.now() };
    last = undefined;
  });
  afterEach(() => {
    last = cpuNow();
  });
  afterAll(() => {
    const end = last ?? cpuNow();
    const round = (n: number) => Math.round(n * 10) / 10;
    const children: Record<string, number> = {};
    for (const kind of new Set([...Object.keys(start.children), ...Object.keys(end.children)]))
      children[kind] = round((end.children[kind] ?? 0) - (start.children[kind] ?? 0));
    const file = expect.getState().testPath ?? '';
    const line = {
      file: file.slice(file.lastIndexOf('/test/') + 1),
      wall: round((Date.now() - start.at) / 1000),
      cpu: round(end.cpu - start.cpu),
      children,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
