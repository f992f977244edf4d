// What a `proctor` process pays to start before it does any work: the CLI as the image runs it (the build of
// scripts/build.ts) against the sources through tsx, and a worker's workflow bundle made at start against loaded
// from the build. Each command is run with no configuration, so it loads its modules and stops at the config check:
// the time and CPU are those of loading. CPU is the children's, from /proc/self/stat once each is reaped (Linux).
//
//   node --import tsx bench/startup.ts
//   BENCH_RUNS=5   runs of each (default 3); the median is printed
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildAll } from '../scripts/build.js';
import { watchdog } from './support.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
watchdog(600, 'bench/startup');

/** CPU seconds used by this process's reaped children so far (cutime + cstime). */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const coldBundle = `
const { bundleWorkflows } = await import(${JSON.stringify(resolve('src/worker/worker.ts'))});
const started = performance.now();
const cpu = process.cpuUsage();
await bundleWorkflows();
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 }));
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function measure(args: string[]): { wall: number; cpu: number } {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpu = childrenCpu();
    const started = performance.now();
    // No DATABASE_URL: every command loads its modules, then stops at the configuration (or its usage), exit code 1.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    walls.push((performance.now() - started) / 1000);
    cpus.push(childrenCpu() - cpu);
    // `admin` without a command prints its usage (which names DATABASE_URL) instead.
    if (!/DATABASE_URL|required/i.test(result.stderr + result.stdout))
      throw new Error(`${args.join(' ')} did not stop at the configuration:\n${result.stderr}`);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

mkdirSync(resolve('.proctor'), { recursive: true });
const dir = mkdtempSync(resolve('.proctor', 'bench-build-'));
try {
  const buildStarted = performance.now();
  const { cli } = await buildAll(dir);
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  const rows = ['api', 'worker', 'admin', 'tunnel'].map((command) => {
    const source = measure(['--import', 'tsx', 'src/cli.ts', command]);
    const built = measure(['--enable-source-maps', cli, command]);
    return { command, source, built };
  });
  // In a fresh process each time, as a worker starting without PROCTOR_WORKFLOW_BUNDLE bundles (a second bundle in
  // the same process is warm and about three times cheaper).
  const bundling = Array.from({ length: runs }, () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', coldBundle], {
      encoding: 'utf8',
    });
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as { wall: number; cpu: number };
  });
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const f = (n: number) => n.toFixed(2);
  console.log(`\nbuild (scripts/build.ts, CLI and workflow bundle): ${f(buildSeconds)} s\n`);
  console.log('| command | through tsx: wall s | CPU s | built: wall s | CPU s |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows)
    console.log(
      `| ${r.command} | ${pad(f(r.source.wall), 6)} | ${pad(f(r.source.cpu), 5)} | ${pad(f(r.built.wall), 6)} | ${pad(f(r.built.cpu), 5)} |`,
    );
  const b = { wall: median(bundling.map((x) => x.wall)), cpu: median(bundling.map((x) => x.cpu)) };
  console.log(
    `\nA worker without a prebuilt bundle also bundles its workflows at start: ${f(b.wall)} s, ${f(b.cpu)} CPU-s` +
      ` (median of ${runs}); the image loads dist/workflows.js instead.`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
