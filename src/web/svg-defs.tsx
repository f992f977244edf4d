import type { Child } from 'hono/jsx';

// The fills and markers the dashboard's pictures share (the run timeline, the site map, the trend charts): one
// definition each, so a failed bar, an uncovered page and a failed run in a trend are marked alike. Each picture
// includes the ones it uses under its own id prefix: ids are unique per document, and two pictures on one page
// must not both define `#hatch`. They are attributes, not styles: the Content-Security-Policy allows no inline
// style, and a stylesheet's url(#…) may not reach a page's own pattern.

/** A fill that tells a state without colour: each has a shape (stripes, cross-hatch, dots) of its own. */
export type SvgFill = 'failed' | 'skipped' | 'flaky' | 'running' | 'hatch';
export type SvgMark = SvgFill | 'arrow';

/**
 * Lines of `stroke` (`width` thick, `size` apart) on `background`, turned by `angle` degrees; `over` is drawn on top
 * of them (the failed fill's cross line).
 */
const stripes =
  (s: { size: number; angle: number; background: string; stroke: string; width: number; over?: Child }) =>
  (id: string) => (
    <pattern
      id={id}
      width={s.size}
      height={s.size}
      patternUnits="userSpaceOnUse"
      patternTransform={`rotate(${s.angle})`}
    >
      <rect width={s.size} height={s.size} fill={s.background} />
      <line x1="0" y1="0" x2="0" y2={s.size} stroke={s.stroke} stroke-width={s.width} />
      {s.over}
    </pattern>
  );

const fills: Record<SvgFill, (id: string) => Child> = {
  // Cross-hatched, dark red: a failure.
  failed: stripes({
    size: 6,
    angle: 45,
    background: '#a40e26',
    stroke: '#fff',
    width: 2,
    over: <line x1="0" y1="3" x2="6" y2="3" stroke="#fff" stroke-width="1.5" />,
  }),
  // Thin grey stripes on white: skipped, said nothing.
  skipped: stripes({ size: 5, angle: -45, background: '#fff', stroke: '#57606a', width: 1.5 }),
  // White dots on brown: passed only on a retry.
  flaky: (id) => (
    <pattern id={id} width="5" height="5" patternUnits="userSpaceOnUse">
      <rect width="5" height="5" fill="#7d4e00" />
      <circle cx="2.5" cy="2.5" r="1.1" fill="#fff" />
    </pattern>
  ),
  // Broad brown stripes: still running.
  running: stripes({ size: 8, angle: 45, background: '#fff', stroke: '#7d4e00', width: 4 }),
  // Rust stripes on white: a gap (a page no test visits).
  hatch: stripes({ size: 6, angle: 45, background: '#fff', stroke: '#9a3412', width: 3 }),
};

/** `url(#…)` of a mark defined by `<SvgDefs prefix={prefix}>`. */
export const svgRef = (prefix: string, mark: SvgMark): string => `url(#${prefix}-${mark})`;

/** The marks a picture uses, under its prefix; the arrow's head takes its colour from CSS (`.arrowhead`). */
export function SvgDefs(props: { prefix: string; marks: readonly SvgMark[] }) {
  return (
    <defs>
      {props.marks.map((m) =>
        m === 'arrow' ? (
          <marker
            id={`${props.prefix}-arrow`}
            viewBox="0 0 8 8"
            refX="7"
            refY="4"
            markerWidth="6"
            markerHeight="6"
            orient="auto"
          >
            <path d="M0,0 L8,4 L0,8 z" class="arrowhead" />
          </marker>
        ) : (
          fills[m](`${props.prefix}-${m}`)
        ),
      )}
    </defs>
  );
}
