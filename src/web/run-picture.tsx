// The run page's picture (issue 36): its tests on a timeline, the critical path in words under it.
import { layoutRunTimeline, maxBars, type TimelineTest } from '../domain/run-timeline.js';
import type { RunWithTests } from '../services/dashboard.js';
import { joined } from './components.js';
import { countsText, durationText, RunTimelineSvg, TimelineLegend } from './run-timeline-svg.js';

const asTimelineTest = (t: RunWithTests['tests'][number]): TimelineTest => ({
  id: t.id,
  testCaseId: t.test_case_id,
  name: t.name,
  status: t.status,
  result: t.result,
  startedAt: t.started_at,
  finishedAt: t.finished_at,
  attempts: t.attempts,
  flaky: t.flaky,
  dependsOn: [...(t.resume_from_test_case_id ? [t.resume_from_test_case_id] : []), ...(t.wait_for_test_case_ids ?? [])],
});

export function RunPicture(props: { run: RunWithTests; now: number }) {
  const tests = props.run.tests;
  if (tests.length === 0) return null;
  const timeline = layoutRunTimeline(tests.map(asTimelineTest), props.now);
  const total = Object.fromEntries(
    Object.keys(timeline.levels[0]?.counts ?? {}).map((k) => [
      k,
      timeline.levels.reduce((n, l) => n + l.counts[k as keyof typeof l.counts], 0),
    ]),
  ) as Parameters<typeof countsText>[0];
  const drawn = timeline.bars
    ? `one bar per test`
    : `${tests.length.toLocaleString('en')} tests are more than ${maxBars}: one row per plan level, split by result`;
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <RunTimelineSvg
        timeline={timeline}
        caption={`${tests.length.toLocaleString('en')} tests over ${durationText(timeline.span)} (${drawn}): ${countsText(total)}.`}
      />
      <TimelineLegend />
      {timeline.critical.length > 0 && (
        <p class="critical-path">
          <strong>Critical path</strong> ({timeline.critical.length} tests, each waiting for the one before):{' '}
          {joined(
            timeline.critical,
            (c) => (
              <span class={`tl-path k-${c.kind}`}>{c.name}</span>
            ),
            ' → ',
          )}
        </p>
      )}
    </section>
  );
}
