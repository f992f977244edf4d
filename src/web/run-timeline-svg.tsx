import type { RunTimeline, TimelineBar, TimelineKind, TimelineLevel } from '../domain/run-timeline.js';
import { timelineKinds } from '../domain/run-timeline.js';
import { SvgDefs, svgRef } from './svg-defs.js';

// A run's timeline as inline SVG (issue 36): one bar per test from its start to its end, the dependency arrows,
// the critical path outlined thick. A result is told by colour, by fill pattern and, for anything but a pass, by a
// word beside the bar, so the picture reads without colour. A run of more than `maxBars` tests is drawn per plan
// level (at most `maxLevelRows` rows), so a page never holds thousands of bars. Patterns are attributes, not
// styles, shared with the other pictures (svg-defs.tsx).

const width = 960;
const nameWidth = 250;
const plotLeft = nameWidth + 10;
const plotWidth = width - plotLeft - 110;
const rowHeight = 16;
const barHeight = 10;
const top = 28;
const maxLevelRows = 100;

const words: Record<TimelineKind, string> = {
  passed: 'passed',
  flaky: 'flaky',
  failed: 'failed',
  skipped: 'skipped',
  running: 'running',
  waiting: 'waiting',
  cancelled: 'cancelled',
};
const fills: Partial<Record<TimelineKind, string>> = {
  failed: svgRef('tl', 'failed'),
  skipped: svgRef('tl', 'skipped'),
  flaky: svgRef('tl', 'flaky'),
  running: svgRef('tl', 'running'),
};

export function durationText(ms: number): string {
  if (ms === 0) return '0 s';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
}

const plural = (n: number, one: string) => `${n.toLocaleString('en')} ${one}${n === 1 ? '' : 's'}`;

function Axis(props: { span: number; height: number }) {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <g class="tl-axis" aria-hidden="true">
      {ticks.map((f) => {
        const x = plotLeft + f * plotWidth;
        return (
          <>
            <line x1={x} x2={x} y1={top - 6} y2={props.height - 4} />
            <text x={x} y={top - 10} text-anchor={f === 0 ? 'start' : f === 1 ? 'end' : 'middle'}>
              {durationText(f * props.span)}
            </text>
          </>
        );
      })}
    </g>
  );
}

const xOf = (ms: number, span: number) => plotLeft + (ms / span) * plotWidth;

/** The word beside a bar: nothing for a plain pass (the solid bar says it), else the result and the retries. */
function note(b: TimelineBar): string {
  const retries = b.attempts > 1 ? `${b.attempts} attempts` : '';
  if (b.kind === 'passed') return retries;
  return [words[b.kind], retries].filter(Boolean).join(', ');
}

function Bar(props: { b: TimelineBar; row: number; span: number }) {
  const { b, row, span } = props;
  const y = top + row * rowHeight;
  const x = xOf(b.from, span);
  const marker = b.kind === 'skipped' || b.kind === 'waiting';
  const w = marker ? 10 : Math.max(3, xOf(b.to, span) - x);
  const label = `${b.name}: ${words[b.kind]}${b.attempts > 1 ? ` after ${b.attempts} attempts` : ''}, ${
    marker ? `at ${durationText(b.from)}` : `${durationText(b.from)} to ${durationText(b.to)}`
  }${b.critical ? ', on the critical path' : ''}`;
  const text = note(b);
  const after = x + w + 4 + text.length * 6 < width;
  return (
    <g class={`tl-bar k-${b.kind}${b.critical ? ' critical' : ''}`} role="img" aria-label={label} data-kind={b.kind}>
      <text class="tl-name" x={nameWidth} y={y + barHeight} text-anchor="end">
        {b.name.length > 38 ? `${b.name.slice(0, 37)}…` : b.name}
      </text>
      <rect x={x} y={y + 1} width={w} height={barHeight} fill={fills[b.kind]} />
      {text && (
        <text class="tl-note" x={after ? x + w + 4 : x - 4} y={y + barHeight} text-anchor={after ? 'start' : 'end'}>
          {text}
        </text>
      )}
    </g>
  );
}

function Edges(props: { timeline: RunTimeline; span: number }) {
  const bars = props.timeline.bars ?? [];
  const mid = (row: number) => top + row * rowHeight + 1 + barHeight / 2;
  return (
    <g class="tl-edges" aria-hidden="true">
      {props.timeline.edges.map((e) => {
        const from = bars[e.from]!;
        const x1 = from.kind === 'skipped' ? xOf(from.from, props.span) + 10 : xOf(from.to, props.span);
        const x2 = xOf(bars[e.to]!.from, props.span) - 1;
        const [y1, y2] = [mid(e.from), mid(e.to)];
        const bend = Math.max(8, Math.abs(x2 - x1) / 2);
        return (
          <path
            class={e.critical ? 'tl-edge critical' : 'tl-edge'}
            d={`M${x1},${y1}C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`}
            marker-end={svgRef('tl', 'arrow')}
          />
        );
      })}
    </g>
  );
}

/** Consecutive levels merged so a long chain is at most `maxLevelRows` rows. */
function levelRows(levels: TimelineLevel[]): (TimelineLevel & { last: number })[] {
  const per = Math.ceil(levels.length / maxLevelRows);
  const rows: (TimelineLevel & { last: number })[] = [];
  for (let i = 0; i < levels.length; i += per) {
    const group = levels.slice(i, i + per);
    const counts = Object.fromEntries(
      timelineKinds.map((k) => [k, group.reduce((n, l) => n + l.counts[k], 0)]),
    ) as Record<TimelineKind, number>;
    rows.push({
      level: group[0]!.level,
      last: group[group.length - 1]!.level,
      count: group.reduce((n, l) => n + l.count, 0),
      from: Math.min(...group.map((l) => l.from)),
      to: Math.max(...group.map((l) => l.to)),
      counts,
    });
  }
  return rows;
}

export const countsText = (counts: Record<TimelineKind, number>) =>
  timelineKinds
    .filter((k) => counts[k] > 0)
    .map((k) => `${counts[k].toLocaleString('en')} ${words[k]}`)
    .join(' · ');

function LevelRow(props: { l: TimelineLevel & { last: number }; row: number; span: number }) {
  const { l, row, span } = props;
  const y = top + row * rowHeight * 2;
  const x = xOf(l.from, span);
  const w = Math.max(3, xOf(l.to, span) - x);
  const name = l.last === l.level ? `Level ${l.level}` : `Levels ${l.level}–${l.last}`;
  let offset = x;
  return (
    <g class="tl-level" role="img" aria-label={`${name}: ${plural(l.count, 'test')}, ${countsText(l.counts)}`}>
      <text class="tl-name" x={nameWidth} y={y + barHeight} text-anchor="end">
        {`${name} · ${plural(l.count, 'test')}`}
      </text>
      {timelineKinds
        .filter((k) => l.counts[k] > 0)
        .map((k) => {
          const part = Math.max(2, (w * l.counts[k]) / l.count);
          const at = offset;
          offset += part;
          return <rect class={`k-${k}`} x={at} y={y + 1} width={part} height={barHeight} fill={fills[k]} />;
        })}
      <text class="tl-note" x={nameWidth + 10} y={y + barHeight + 13}>
        {countsText(l.counts)}
      </text>
    </g>
  );
}

/** The timeline figure; `caption` says in words what the picture shows. */
export function RunTimelineSvg(props: { timeline: RunTimeline; caption: string }) {
  const { timeline } = props;
  const span = timeline.span;
  const rows = timeline.bars ? timeline.bars.length : levelRows(timeline.levels).length * 2;
  const height = top + rows * rowHeight + 8;
  return (
    <figure class="timeline">
      <figcaption id="timeline-caption">{props.caption}</figcaption>
      <div
        class="timeline-scroll"
        tabindex={0}
        role="region"
        aria-label="Timeline (scrolls sideways on a narrow screen)"
      >
        <svg
          class="timeline"
          role="group"
          aria-labelledby="timeline-caption"
          viewBox={`0 0 ${width} ${height}`}
          width={width}
          height={height}
        >
          <SvgDefs prefix="tl" marks={['failed', 'skipped', 'flaky', 'running', 'arrow']} />
          <Axis span={span} height={height} />
          {timeline.bars ? (
            <>
              <Edges timeline={timeline} span={span} />
              {timeline.bars.map((b, i) => (
                <Bar b={b} row={i} span={span} />
              ))}
            </>
          ) : (
            levelRows(timeline.levels).map((l, i) => <LevelRow l={l} row={i} span={span} />)
          )}
        </svg>
      </div>
    </figure>
  );
}

/** Small copies of each mark with what it means. */
export function TimelineLegend() {
  const swatch = (kind: TimelineKind, critical = false) => (
    <svg class="timeline swatch" width="30" height="14" aria-hidden="true">
      <g class={`tl-bar k-${kind}${critical ? ' critical' : ''}`}>
        <rect x="2" y="2" width="26" height="10" fill={fills[kind]} />
      </g>
    </svg>
  );
  return (
    <ul class="legend plain timeline-legend">
      <li>{swatch('passed')} Passed: solid bar</li>
      <li>{swatch('failed')} Failed: cross-hatched bar, "failed"</li>
      <li>{swatch('skipped')} Skipped (a test it waits on did not pass): hatched marker, dashed outline, "skipped"</li>
      <li>{swatch('flaky')} Flaky: dotted bar, passed on a retry ("2 attempts")</li>
      <li>{swatch('passed', true)} Thick black outline: the critical path, the waits the run's end depended on</li>
      <li>An arrow runs from a test to a test that waited for it.</li>
    </ul>
  );
}
