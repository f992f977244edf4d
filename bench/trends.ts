// The dashboard's trends (issue 36) over a long history: a project of 20,000 runs, 10,000 of them of one plan, 20
// tests each (400,000 executions). How long each trend read takes, and what its query plan reads (EXPLAIN ANALYZE:
// the rows each scan returned; a scan repeated per row as `loops of` its average rows), with the indexes of migration 0170 and without them, so the figure says what the
// indexes are for: a plan's trend must read its last 30 runs, not every run of the project.
//
//   node --import tsx bench/trends.ts
//   BENCH_RUNS=20000 BENCH_ITERATIONS=50 node --import tsx bench/trends.ts
//
// A private Postgres cluster (the test suite's: fsync off); the history is written with generate_series, about 1%
// of executions flaky and one run in ten failed.
import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { createDatabase, migrateToLatest } from '../src/db/database.js';
import { seedProject } from '../src/db/queries/admin.js';
import { createApplication } from '../src/db/queries/applications.js';
import { loadPrograms } from '../src/programs.js';
import { openIssuesByKind, planPassRates, planTrend, testCaseTrend } from '../src/services/trends.js';
import { startPostgres } from '../test/support/postgres.js';
import { applicationIdOf, insertRecordedTestCase, loginSteps } from '../test/support/recorded.js';
import { envInt, fixed, median, percentile, table, watchdog } from './support.js';

watchdog(900, 'trends');
const runs = envInt('BENCH_RUNS', 20_000);
const iterations = envInt('BENCH_ITERATIONS', 50);
const testsPerRun = 20;

// Every query the services send, kept so it can be explained afterwards.
const seen: RootOperationNode[] = [];
const capture: KyselyPlugin = {
  transformQuery: (args) => (seen.push(args.node), args.node),
  transformResult: async (args) => args.result,
};

const cluster = await startPostgres(loadPrograms().postgresBin!);
const db = createDatabase({ kind: 'postgres', url: cluster.url, maxConnections: 4 }, [capture]);
try {
  await migrateToLatest(db);
  const { projectId } = await seedProject(db, { organization: 'Bench', project: 'Bench' });
  const applicationId = await applicationIdOf(
    db,
    (await createApplication(db, projectId, { name: 'Shop', kind: 'web' })).shortId,
  );
  const ids: string[] = [];
  for (let i = 0; i < testsPerRun; i++)
    ids.push(await insertRecordedTestCase(db, { projectId, applicationId, name: `test ${i}`, steps: loginSteps }));
  const planShortId = 'pln-bench';
  const planId = crypto.randomUUID();
  await db
    .insertInto('test_plans')
    .values({ id: planId, short_id: planShortId, project_id: projectId, name: 'Nightly' } as never)
    .execute();
  const written = performance.now();
  // Every other run is of the plan; the rest are of no plan (single tests, API runs), interleaved in time.
  await sql`insert into runs (id, short_id, project_id, test_plan_id, status, result, created_at, started_at,
      finished_at, test_count)
    select gen_random_uuid(), 'run-bench-' || g, ${projectId}, case when g % 2 = 0 then ${planId}::uuid end,
      'COMPLETED', case when g % 10 = 3 then 'FAILED' else 'PASSED' end, t, t, t + interval '40 seconds',
      ${testsPerRun}
    from generate_series(1, ${runs}) g, lateral (select now() - (${runs} - g) * interval '10 minutes' as t) at`.execute(
    db,
  );
  await sql`insert into run_test_cases (id, run_id, test_case_id, name, application_id, status, result, flaky,
      attempts, duration_ms, started_at, finished_at)
    select gen_random_uuid(), r.id, c.id, c.name, c.application_id, 'COMPLETED', 'PASSED', random() < 0.01, 1,
      1500 + (random() * 1000)::int, r.started_at, r.finished_at
    from runs r cross join test_cases c where r.project_id = ${projectId} and c.project_id = ${projectId}`.execute(db);
  await sql`analyze`.execute(db);
  console.log(
    `wrote ${runs.toLocaleString('en')} runs, ${(runs * testsPerRun).toLocaleString('en')} executions in ${fixed((performance.now() - written) / 1000)} s`,
  );

  const reads = {
    'plan trend': () => planTrend({ db }, projectId, planShortId),
    'test trend': () => testCaseTrend({ db }, projectId, ids[3]!),
    'plans list pass rates': () => planPassRates({ db }, projectId),
    'open issues by kind': () => openIssuesByKind({ db }, projectId),
  };

  /** The rows each scan of the read's query returned, summed per scan kind and relation. */
  async function explain(read: () => Promise<unknown>): Promise<string> {
    seen.length = 0;
    await read();
    const node = seen.at(-1)!;
    const compiled = db.getExecutor().compileQuery(node, { queryId: 'explain' } as never);
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      CompiledQuery.raw(`explain (analyze, format json) ${compiled.sql}`, [...compiled.parameters]),
    );
    const scans: string[] = [];
    const walk = (p: PlanNode) => {
      if (p['Relation Name'])
        scans.push(
          `${p['Node Type']} ${p['Index Name'] ?? p['Relation Name']}: ${p['Actual Loops'] > 1 ? `${p['Actual Loops']} loops of ${p['Actual Rows']}` : p['Actual Rows'].toLocaleString('en')}`,
        );
      for (const child of p.Plans ?? []) walk(child);
    };
    walk(rows[0]!['QUERY PLAN'][0]!.Plan);
    return scans.join('; ');
  }

  async function measure(label: string) {
    const out: (string | number)[][] = [];
    for (const [name, read] of Object.entries(reads)) {
      const times: number[] = [];
      for (let i = 0; i <= iterations; i++) {
        const started = performance.now();
        await read();
        times.push(performance.now() - started);
      }
      out.push([name, fixed(median(times.slice(1))), fixed(percentile(times.slice(1), 95)), await explain(read)]);
    }
    console.log(`\n${label}\n${table(['read', 'median ms', 'p95 ms', 'rows each scan returned'], out)}`);
  }

  await measure('with the indexes of migration 0170');
  await sql`drop index runs_test_plan_created`.execute(db);
  await sql`drop index run_test_cases_flaky`.execute(db);
  await sql`analyze`.execute(db);
  await measure('without them (as before migration 0170)');
} finally {
  await db.destroy();
  await cluster.stop();
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}
