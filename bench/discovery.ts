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
import { workflowIds } from '../workflows/shared.js';
import { startGeneratedSite } from '../test/support/generated-site.js';
import { runBackendBench, startBenchBackend, startBenchProctor } from './backend.js';
import { benchWorkerSettings, envInt, fixed, table } from './support.js';

const sections = envInt('BENCH_SECTIONS', 333);
const items = envInt('BENCH_ITEMS', 2);
const concurrency = envInt('BENCH_CONCURRENCY', 3);
/** Temporal's hard limit of events in one workflow run's history (the server terminates the run past it). */
const historyEventLimit = 51_200;

/** What the bench reads of a discovery (an error answer has only `message`). */
interface Answer {
  shortId: string;
  status: string;
  pages: number;
  error: string | null;
  message?: string;
}
await runBackendBench('bench/discovery', 40, async (closers) => {
  const backend = await startBenchBackend(closers, 'discovery');
  const site = await startGeneratedSite({ sections, items, search: false });
  closers.push(() => site.stop());
  const proctor = await startBenchProctor(closers, backend, benchWorkerSettings(concurrency));
  const call = (method: string, path: string, body?: unknown) => proctor.call<Answer>(method, path, body);

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
  const client = await proctor.temporal.get();
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
    return false;
  }
  if (Math.max(...runs.map((r) => r.events)) >= historyEventLimit) {
    process.stderr.write(`a run of the chain reached Temporal's limit of ${historyEventLimit} events\n`);
    return false;
  }
});
