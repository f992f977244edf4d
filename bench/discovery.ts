// A discovery of a synthetic application of 1,000 pages through the real stack: the API over HTTP, the discovery
// workflow on a Temporal dev server, its visitDiscoveryPage activities in one worker visiting each page in
// Chromium (the browser pool's concurrency), PostgreSQL. The application is generated here by a node:http server
// (test/support/generated-site.ts): a home page linking to S sections, each section linking to its items
// (`/section-x/1`, `/section-x/2`: one pattern per section), S = 333 and 2 items make 1 + 333 + 666 = 1,000 pages,
// all of distinct URLs and 667 patterns, so every page is visited (two per pattern) and the history has to
// continue as new.
//
// It prints: the wall clock from the POST to COMPLETED, pages per second, how many times the workflow continued as
// new (from the chain's runs in Temporal), the events of the longest run against Temporal's 51,200 limit, and
// whether the site served every page once.
//
//   node --import tsx bench/discovery.ts
//   BENCH_SECTIONS=333 BENCH_ITEMS=2     the site's shape (pages = 1 + S + S x I)
//   BENCH_CONCURRENCY=3                  the browser pool's contexts (the workflow launches 3 visits at once)
import { loadavg } from 'node:os';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createApp } from '../src/api/app.js';
import { silentLogger } from '../src/logger.js';
import { createTemporalClientProvider } from '../src/temporal/client.js';
import { startWorker } from '../src/worker/worker.js';
import { workflowIds } from '../workflows/shared.js';
import { startGeneratedSite } from '../test/support/generated-site.js';
import { listen, startBenchBackend, type Closers } from './backend.js';
import { benchWorkerSettings, envInt, fixed, table } from './support.js';

const sections = envInt('BENCH_SECTIONS', 333);
const items = envInt('BENCH_ITEMS', 2);
const concurrency = envInt('BENCH_CONCURRENCY', 3);
/** Temporal's hard limit of events in one workflow run's history (the server terminates the run past it). */
const historyEventLimit = 51_200;

setTimeout(() => {
  process.stderr.write('bench/discovery: timed out\n');
  process.exit(1);
}, 40 * 60_000).unref();

Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
const closers: Closers = [];

/** What the bench reads of a discovery (an error answer has only `message`). */
interface Answer {
  shortId: string;
  status: string;
  pages: number;
  error: string | null;
  message?: string;
}
let exitCode = 0;
try {
  process.stdout.write(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  const { temporalServer, bundle, db, token, blobs, taskQueue } = await startBenchBackend(closers, 'discovery');
  const site = await startGeneratedSite({ sections, items, search: false });
  closers.push(() => site.stop());
  const worker = await startWorker(
    { address: temporalServer.address, namespace: 'default', taskQueue, workflowBundle: bundle },
    benchWorkerSettings(concurrency),
    { db, blobs, logger: silentLogger },
  );
  closers.push(() => worker.stop());
  const temporal = createTemporalClientProvider({ address: temporalServer.address, namespace: 'default', taskQueue });
  closers.push(() => temporal.close());
  const publicUrl = 'http://127.0.0.1:3000';
  const app = createApp({
    db,
    config: { appUrl: publicUrl, publicUrl, PROCTOR_URL_TTL_SECONDS: 900, PROCTOR_RUN_CONCURRENCY: 100 },
    temporal,
    blobs,
    logger: silentLogger,
  });
  const apiUrl = await listen(closers, app.fetch);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(apiUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  };

  const application = (await call('POST', '/v1/applications', { name: 'Synthetic' })).body.shortId;
  await call('POST', `/v1/applications/${application}/environments`, { name: 'Local', url: `${site.url}/` });
  const pages = site.paths.length;
  const t0 = performance.now();
  const asked = await call('POST', `/v1/applications/${application}/discoveries`, {
    budget: { pages: pages + 10, actions: 50_000, minutes: 60 },
  });
  if (asked.status !== 202) throw new Error(`POST answered ${asked.status}: ${JSON.stringify(asked.body)}`);
  const id = asked.body.shortId;
  let discovery: Answer;
  for (;;) {
    discovery = (await call('GET', `/v1/discoveries/${id}`)).body;
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(discovery.status)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const wallS = (performance.now() - t0) / 1000;
  if (discovery.status !== 'COMPLETED') throw new Error(`the discovery ended ${discovery.status}: ${discovery.error}`);

  // The chain's runs: one execution per continue-as-new, all under the discovery's workflow id.
  const client = await temporal.get();
  const runs: { runId: string; events: number }[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId="${workflowIds.discovery(id)}"` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    runs.push({ runId: wf.runId, events: history.events?.length ?? 0 });
  }
  const requests = site.requests();
  const fetchedTwice = site.paths.filter((p) => (requests.get(p) ?? 0) > 1).length;
  const missed = site.paths.filter((p) => !requests.has(p)).length;

  process.stdout.write(
    `\n${table(
      [
        'site pages',
        'visited',
        'patterns',
        'wall s',
        'pages/s',
        'runs (continued as new)',
        'max events/run',
        'fetched twice',
        'never fetched',
      ],
      [
        [
          pages,
          discovery.pages,
          site.patterns.length,
          fixed(wallS),
          fixed(discovery.pages / wallS, 2),
          `${runs.length} (${runs.length - 1})`,
          Math.max(...runs.map((r) => r.events)),
          fetchedTwice,
          missed,
        ],
      ],
    )}\n`,
  );
  if (runs.length < 2) {
    process.stderr.write('the discovery did not continue as new\n');
    exitCode = 1;
  }
  if (Math.max(...runs.map((r) => r.events)) >= historyEventLimit) {
    process.stderr.write(`a run of the chain reached Temporal's limit of ${historyEventLimit} events\n`);
    exitCode = 1;
  }
} catch (err) {
  process.stderr.write(`bench/discovery failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  exitCode = 1;
} finally {
  for (const close of closers.reverse()) await close().catch(() => undefined);
}
process.exit(exitCode);
