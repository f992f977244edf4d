// Proctor's metrics follow Prometheus' conventions, and no label can take an unbounded value (an id, a project).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry, renderMetrics, readBacklogFrom, trackBrowserPool } from '../../src/metrics.js';
import { metricLabels } from '../support/metric-labels.js';
import { parseSamples, sumOf } from '../support/prometheus-text.js';

// prom-client's metric objects, with the fields its type declarations leave out.
const metrics = registry.getMetricsAsArray() as unknown as {
  name: string;
  labelNames: string[];
  get(): Promise<{ type: string; help: string }>;
}[];
// Words that name one thing among many: a label with such a name would hold ids or per-tenant values.
const unboundedWords =
  /(^|_)(id|ids|uuid|name|url|path|email|project|org|organization|user|token|run|test|case|chat|plan|application|environment|repository|branch|commit|message|error|reason)($|_)/;

describe('metric definitions', () => {
  it('defines the metrics the operations guide lists', async () => {
    const listed = metrics.map((m) => m.name);
    const guide = readFileSync('docs/operations.md', 'utf8');
    for (const name of listed) expect(guide, `${name} in docs/operations.md`).toContain(`\`${name}\``);
    // And the guide lists none that is gone.
    const documented = new Set([...guide.matchAll(/`(proctor_[a-z0-9_]+)`/g)].map((m) => m[1]));
    expect([...documented].sort()).toEqual([...listed].sort());
  });

  it.each(metrics.map((m) => [m.name, m] as const))(
    '%s: Prometheus naming, labels from closed sets',
    async (name, metric) => {
      const { type, help } = await metric.get();
      expect(name).toMatch(/^proctor_[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(help.length).toBeGreaterThan(10);
      if (type === 'counter') expect(name).toMatch(/_total$/);
      else expect(name).not.toMatch(/_total$/);
      // Base units: seconds, never milliseconds; a duration histogram says so in its name.
      expect(name).not.toMatch(/_(ms|milliseconds|minutes|hours|bytes_kb)(_|$)/);
      if (type === 'histogram' && /duration|latency|time/.test(name)) expect(name).toMatch(/_seconds$/);
      for (const label of metric.labelNames) {
        expect(label).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(label, `${name}{${label}} names one thing among many`).not.toMatch(unboundedWords);
        expect(Object.keys(metricLabels), `${name}{${label}}: add it to test/support/metric-labels.ts`).toContain(
          label,
        );
      }
    },
  );
});

describe('the exposition', () => {
  it('reads the backlog and the browser contexts on a scrape, and leaves the backlog out when Temporal is away', async () => {
    const untrack = trackBrowserPool(() => ({ active: 2, queued: 1, concurrency: 4 }));
    readBacklogFrom(async () => [
      { taskQueue: 'proctor', type: 'workflow', tasks: 3, ageSeconds: 1.5 },
      { taskQueue: 'proctor', type: 'activity', tasks: 7, ageSeconds: 0 },
    ]);
    try {
      const samples = parseSamples(await renderMetrics());
      expect(sumOf(samples, 'proctor_browser_contexts_in_use')).toBe(2);
      expect(sumOf(samples, 'proctor_browser_contexts_waiting')).toBe(1);
      expect(sumOf(samples, 'proctor_task_queue_backlog', { task_queue: 'proctor', type: 'workflow' })).toBe(3);
      expect(sumOf(samples, 'proctor_task_queue_backlog', { type: 'activity' })).toBe(7);
      expect(sumOf(samples, 'proctor_task_queue_backlog_age_seconds', { type: 'workflow' })).toBe(1.5);

      readBacklogFrom(async () => {
        throw new Error('Temporal is away');
      });
      const away = parseSamples(await renderMetrics());
      // Missing, not 0: an autoscaler must not read "nothing waiting" from an outage.
      expect(away.some((s) => s.name === 'proctor_task_queue_backlog')).toBe(false);
    } finally {
      untrack();
      readBacklogFrom(undefined);
    }
  });
});
