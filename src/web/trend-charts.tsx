import type { Trend, TrendOutcome, TrendRun, UsageDayPoint } from '../domain/trends.js';
import { percent, trendSentence } from '../domain/trends.js';
import { ColumnHeads } from './components.js';
import { durationText } from './run-timeline-svg.js';
import { SvgDefs, svgRef, type SvgFill } from './svg-defs.js';

// Trends drawn (issue 36) as small inline SVGs: no script, nothing fetched. Each chart says its numbers in words
// beside it (and as its accessible name), and marks a result by fill pattern and a sign under the bar as well as
// by colour, so it reads without colour and without sight; the runs themselves are a table behind a disclosure.

const barWidth = 12;
const gap = 3;
const plotHeight = 56;
const plural = (n: number, one: string) => `${n.toLocaleString('en')} ${one}${n === 1 ? '' : 's'}`;

const outcomeFill: Partial<Record<TrendOutcome, SvgFill>> = { failed: 'failed', flaky: 'flaky', skipped: 'skipped' };
/** The sign under a bar: a pass has none, so the signs are what stands out. */
const outcomeSign: Record<TrendOutcome, string> = {
  passed: '',
  flaky: 'R',
  failed: '✕',
  skipped: '–',
  unfinished: '…',
};
const outcomeWord: Record<TrendOutcome, string> = {
  passed: 'passed',
  flaky: 'passed on a retry',
  failed: 'failed',
  skipped: 'skipped',
  unfinished: 'not finished',
};

const day = (at: Date) => at.toISOString().slice(0, 10);

/** What a trend says in words: the sentence, then the durations. */
export function trendSummary(t: Trend): string {
  const times =
    t.medianMs === undefined
      ? ''
      : `; median duration ${durationText(t.medianMs)}, longest ${durationText(t.longestMs!)}`;
  return `${trendSentence(t)}${times}`;
}

function RunBar(props: { p: TrendRun; i: number; longest: number; prefix: string }) {
  const { p, i } = props;
  const x = i * (barWidth + gap);
  const h =
    p.durationMs === undefined || props.longest === 0
      ? 6
      : Math.max(3, Math.round((p.durationMs / props.longest) * plotHeight));
  const fill = outcomeFill[p.outcome];
  const took = p.durationMs === undefined ? '' : `, ${durationText(p.durationMs)}`;
  return (
    <g class={`tr-bar o-${p.outcome}`}>
      <title>{`run ${p.runShortId}, ${day(p.at)}: ${outcomeWord[p.outcome]}${took}`}</title>
      <rect x={x} y={plotHeight - h} width={barWidth} height={h} fill={fill && svgRef(props.prefix, fill)} />
      <text class="tr-sign" x={x + barWidth / 2} y={plotHeight + 13} text-anchor="middle">
        {outcomeSign[p.outcome]}
      </text>
    </g>
  );
}

/**
 * A plan's or a test's last runs as bars, oldest on the left: the height is the run's duration, the fill its result.
 * `prefix` keeps the chart's pattern ids apart from any other picture on the page.
 */
export function TrendChart(props: { trend: Trend; base: string; what: string; prefix: string }) {
  const t = props.trend;
  const summary = trendSummary(t);
  if (t.points.length === 0) return <p class="trend-summary">No runs yet.</p>;
  const width = t.points.length * (barWidth + gap);
  const longest = Math.max(0, ...t.points.map((p) => p.durationMs ?? 0));
  return (
    <figure class="trend">
      <figcaption class="trend-summary">
        Last {plural(t.points.length, 'run')} of this {props.what}: {summary}.
      </figcaption>
      <dl class="facts trend-figures">
        <dt>Pass rate</dt>
        <dd>{percent(t.passRate)}</dd>
        <dt>Flake rate</dt>
        <dd>{percent(t.flakeRate)}</dd>
        <dt>Median duration</dt>
        <dd>{t.medianMs === undefined ? '–' : durationText(t.medianMs)}</dd>
      </dl>
      <svg
        class="trend-chart"
        role="img"
        aria-label={`Last ${plural(t.points.length, 'run')}, oldest first: ${summary}`}
        viewBox={`0 -12 ${width + 90} ${plotHeight + 30}`}
        width={width + 90}
        height={plotHeight + 30}
      >
        <SvgDefs prefix={props.prefix} marks={['failed', 'flaky', 'skipped']} />
        <line class="tr-base" x1="0" y1={plotHeight + 0.5} x2={width} y2={plotHeight + 0.5} />
        {t.points.map((p, i) => (
          <RunBar p={p} i={i} longest={longest} prefix={props.prefix} />
        ))}
        <text class="tr-scale" x={width + 6} y="0">
          {longest > 0 ? durationText(longest) : ''}
        </text>
        <text class="tr-scale" x={width + 6} y={plotHeight + 4}>
          newest
        </text>
      </svg>
      <TrendLegend prefix={props.prefix} />
      <details>
        <summary>The runs as a table</summary>
        <table class="compact">
          <ColumnHeads names={['Run', 'Started', 'Result', 'Duration']} />
          <tbody>
            {[...t.points].reverse().map((p) => (
              <tr>
                <td>
                  <a href={`${props.base}/runs/${p.runShortId}`}>{p.runShortId}</a>
                </td>
                <td>{day(p.at)}</td>
                <td>{outcomeWord[p.outcome]}</td>
                <td>{p.durationMs === undefined ? '–' : durationText(p.durationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function TrendLegend(props: { prefix: string }) {
  const swatch = (o: TrendOutcome) => (
    <svg class="trend-chart swatch" width="14" height="14" aria-hidden="true">
      <g class={`tr-bar o-${o}`}>
        <rect x="1" y="1" width="12" height="12" fill={outcomeFill[o] && svgRef(props.prefix, outcomeFill[o])} />
      </g>
    </svg>
  );
  return (
    <p class="legend trend-legend">
      Bar height: how long the run took. {swatch('passed')} passed (solid) · {swatch('flaky')} passed on a retry
      (dotted, R) · {swatch('failed')} failed (cross-hatched, ✕) · {swatch('skipped')} skipped (striped, –) · not
      finished (outline, …)
    </p>
  );
}

/** The project's LLM use per day: one bar of tokens a day, the cost in each bar's title and the table. */
export function UsageChart(props: { points: UsageDayPoint[] }) {
  const { points } = props;
  const most = Math.max(0, ...points.map((p) => p.tokens));
  const w = 14;
  const width = points.length * (w + 2);
  const tokens = points.reduce((s, p) => s + p.tokens, 0);
  const cost = (p: UsageDayPoint) => (p.costUsd === undefined ? '' : `, $${p.costUsd.toFixed(4)}`);
  const label = `Tokens per day from ${points[0]?.date} to ${points.at(-1)?.date}: ${tokens.toLocaleString('en')} in all, at most ${most.toLocaleString('en')} on a day`;
  return (
    <figure class="trend">
      <figcaption class="trend-summary">{label}.</figcaption>
      <svg
        class="trend-chart"
        role="img"
        aria-label={label}
        viewBox={`0 -12 ${width + 110} ${plotHeight + 30}`}
        width={width + 110}
        height={plotHeight + 30}
      >
        <line class="tr-base" x1="0" y1={plotHeight + 0.5} x2={width} y2={plotHeight + 0.5} />
        {points.map((p, i) => {
          const h = most === 0 || p.tokens === 0 ? 0 : Math.max(2, Math.round((p.tokens / most) * plotHeight));
          return (
            <g class="tr-bar o-usage">
              <title>{`${p.date}: ${p.tokens.toLocaleString('en')} tokens in ${plural(p.calls, 'call')}${cost(p)}`}</title>
              <rect x={i * (w + 2)} y={plotHeight - h} width={w} height={Math.max(h, 1)} />
            </g>
          );
        })}
        <text class="tr-scale" x={width + 6} y="0">
          {most.toLocaleString('en')} tokens
        </text>
        <text class="tr-scale" x="0" y={plotHeight + 14}>
          {points[0]?.date}
        </text>
        <text class="tr-scale" x={width} y={plotHeight + 14} text-anchor="end">
          {points.at(-1)?.date}
        </text>
      </svg>
    </figure>
  );
}

/** Open issues per kind as labelled bars, each label a link to the issues of that kind. */
export function KindBars(props: { counts: { kind: string; count: number }[]; base: string }) {
  const most = Math.max(1, ...props.counts.map((c) => c.count));
  const total = props.counts.reduce((s, c) => s + c.count, 0);
  return (
    <figure class="trend kind-bars">
      <figcaption class="trend-summary">
        {plural(total, 'open issue')}: {props.counts.map((c) => `${c.count} ${c.kind}`).join(', ')}.
      </figcaption>
      <ul class="plain">
        {props.counts.map((c) => (
          <li>
            <a class="kind" href={`${props.base}/issues?status=open&kind=${c.kind}`}>
              {c.kind}
            </a>
            <svg class="trend-chart" width="160" height="12" aria-hidden="true">
              <rect class="tr-kind" x="0" y="1" width={Math.round((c.count / most) * 160)} height="10" />
            </svg>
            <span class="count">{c.count}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
