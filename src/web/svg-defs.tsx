import type { Child } from 'hono/jsx';

// The fills and markers the dashboard's pictures share (the run timeline, the site map, the trend charts): one
// definition each, so a failed bar, an uncovered page and a failed run in a trend are marked alike. Each picture
// includes the ones it uses under its own id prefix: ids are unique per document, and two pictures on one page
// must not both define `#hatch`. They are attributes, not styles: the Content-Security-Policy allows no inline
// style, and a stylesheet's url(#…) may not reach a page's own pattern.

/** A fill that tells a state without colour: each has a shape (stripes, cross-hatch, dots) of its own. */
export type SvgFill = 'failed' | 'skipped' | 'flaky' | 'running' | 'hatch';
export type SvgMark = SvgFill | 'arrow';

const fills: Record<SvgFill, (id: string) => Child> = {
  // Cross-hatched, dark red: a failure.
  failed: (id) => (
    <pattern id={id} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="6" height="6" fill="#a40e26" />
      <line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2" />
      <line x1="0" y1="3" x2="6" y2="3" stroke="#fff" stroke-width="1.5" />
    </pattern>
  ),
  // Thin grey stripes on white: skipped, said nothing.
  skipped: (id) => (
    <pattern id={id} width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
      <rect width="5" height="5" fill="#fff" />
      <line x1="0" y1="0" x2="0" y2="5" stroke="#57606a" stroke-width="1.5" />
    </pattern>
  ),
  // White dots on brown: passed only on a retry.
  flaky: (id) => (
    <pattern id={id} width="5" height="5" patternUnits="userSpaceOnUse">
      <rect width="5" height="5" fill="#7d4e00" />
      <circle cx="2.5" cy="2.5" r="1.1" fill="#fff" />
    </pattern>
  ),
  // Broad brown stripes: still running.
  running: (id) => (
    <pattern id={id} width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="8" height="8" fill="#fff" />
      <line x1="0" y1="0" x2="0" y2="8" stroke="#7d4e00" stroke-width="4" />
    </pattern>
  ),
  // Rust stripes on white: a gap (a page no test visits).
  hatch: (id) => (
    <pattern id={id} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="6" height="6" fill="#fff" />
      <line x1="0" y1="0" x2="0" y2="6" stroke="#9a3412" stroke-width="3" />
    </pattern>
  ),
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
