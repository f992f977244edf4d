// The dashboard's page of a finished plan run of 10,000 tests (issue 36): how long the server takes to answer it and
// how large it is. The timeline draws such a run per plan level (never 10,000 bars) and the test table is paged, so
// the page stays small; what it costs is reading the run and laying it out.
//
//   node --import tsx bench/run-page.ts
//   BENCH_TESTS=2000 BENCH_ITERATIONS=20 node --import tsx bench/run-page.ts
//
// A private Postgres cluster (the test suite's: fsync off); the run is written through the queries the run
// workflow uses (test/support/finished-run.ts): 1,000 chains of 10, every 97th test failing, what follows it skipped.
// The first request reads the run from the database; the next ones find it in the finished-run cache, as the
// CI clients polling a run and a person reloading its page do.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { createApplication } from '../src/db/queries/applications.js';
import { loadPrograms } from '../src/programs.js';
import { createFsBlobStore } from '../src/storage/fs.js';
import { createTemporalClientProvider } from '../src/temporal/client.js';
import { writeFinishedRun, type PlannedTest } from '../test/support/finished-run.js';
import { startPostgres } from '../test/support/postgres.js';
import { applicationIdOf, insertRecordedTestCase, loginSteps } from '../test/support/recorded.js';
import { benchApp } from './app.js';
import { envInt, fixed, median, percentile, table, watchdog } from './support.js';

watchdog(900, 'run-page');
const count = envInt('BENCH_TESTS', 10_000);
const iterations = envInt('BENCH_ITERATIONS', 20);

const cluster = await startPostgres(loadPrograms().postgresBin!);
const db = createDatabase({ kind: 'postgres', url: cluster.url, maxConnections: 10 });
try {
  await migrateToLatest(db);
  const { projectId, token } = await seedProject(db, { organization: 'Bench', project: 'Bench' });
  const applicationId = await applicationIdOf(
    db,
    (await createApplication(db, projectId, { name: 'Shop', kind: 'web' })).shortId,
  );
  const ids: string[] = [];
  const written = performance.now();
  for (let i = 0; i < count; i++) {
    ids.push(
      await insertRecordedTestCase(db, {
        projectId,
        applicationId,
        name: `test ${i}`,
        steps: loginSteps,
        waitFor: i % 10 === 0 ? [] : [ids[i - 1]!],
      }),
    );
  }
  const tests: PlannedTest[] = [];
  let blocked = false;
  for (let i = 0; i < count; i++) {
    if (i % 10 === 0) blocked = false;
    const start = (i % 10) * 3;
    const fails: boolean = !blocked && i % 97 === 5;
    tests.push({
      testCaseId: ids[i]!,
      start,
      end: start + 2 + (i % 7) / 10,
      outcome: blocked
        ? 'skipped'
        : fails
          ? {
              outcome: 'FAILED',
              resultTitle: 'Failed',
              failedStepIndex: 3,
              failureKind: 'changed-ui',
              attempts: 1,
              flaky: false,
            }
          : undefined,
    });
    blocked ||= fails;
  }
  const planId = null;
  const run = await writeFinishedRun(db, { projectId, planId, startedAt: new Date(Date.now() - 3_600_000), tests });
  console.log(`wrote ${count.toLocaleString('en')} tests in ${fixed((performance.now() - written) / 1000)} s`);

  const appUrl = 'http://127.0.0.1:3999';
  const temporal = createTemporalClientProvider({ address: '127.0.0.1:1', namespace: 'default', taskQueue: 'bench' });
  const blobs = createFsBlobStore({ dir: '/tmp', secret: randomBytes(32).toString('hex'), publicUrl: appUrl });
  const app = benchApp({ db, appUrl, temporal, blobs });
  // Signed in through the form, as a person is.
  const form = await app.request('/login');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const loginCookie = form.headers.get('set-cookie')!.split(';')[0]!;
  const signedIn = await app.request('/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCookie },
    body: new URLSearchParams({ _csrf: csrf, token }).toString(),
  });
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

  const times: number[] = [];
  let html = '';
  for (let i = 0; i <= iterations; i++) {
    const started = performance.now();
    const res = await app.request(`/runs/${run.shortId}`, { headers: { cookie } });
    html = await res.text();
    if (res.status !== 200) throw new Error(`the run page answered ${res.status}`);
    times.push(performance.now() - started);
  }
  const [first, ...rest] = times;
  const bars = (html.match(/class="tl-bar/g) ?? []).length;
  const levels = (html.match(/class="tl-level"/g) ?? []).length;
  const rows = (html.match(/<tr>/g) ?? []).length;
  console.log(
    table(
      ['tests', 'first ms', 'median ms', 'p95 ms', 'HTML kB', 'gzip kB', 'bars', 'level rows', 'table rows'],
      [
        [
          count.toLocaleString('en'),
          fixed(first!),
          fixed(median(rest)),
          fixed(percentile(rest, 95)),
          fixed(html.length / 1024),
          fixed(gzipSync(html).length / 1024),
          bars,
          levels,
          rows,
        ],
      ],
    ),
  );
  await temporal.close();
} finally {
  await db.destroy();
  await cluster.stop();
}
