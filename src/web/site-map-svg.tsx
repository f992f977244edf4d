import { SvgDefs, svgRef } from './svg-defs.js';
import { siteMapGeometry, type NodeBox, type SiteMapLayout, type SummaryBox } from '../domain/site-map-layout.js';

// The coverage map drawn (issue 34): the boxes and lines `layoutSiteMap` placed, as inline SVG (no script, nothing
// fetched). Covered and uncovered differ three ways, so the picture reads without colour: a covered box has a solid
// outline and a solid band on its left, an uncovered one a dashed outline, a hatched band and the word "uncovered"
// in it. Styles live in app.css (the Content-Security-Policy allows no inline style); only the hatch fill is an
// attribute, as a stylesheet's url(#…) may not reach the page's own pattern.

const g = siteMapGeometry;
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function tagOf(n: NodeBox): string {
  const forms = n.forms > 0 ? plural(n.forms, 'form') : '';
  return n.covered ? forms : forms ? `uncovered · ${forms}` : 'uncovered';
}

function titleOf(n: NodeBox, title: string | undefined): string {
  return [
    `${n.pattern}${title ? ` (${title})` : ''}`,
    n.covered ? 'covered: an enabled test visits it' : 'uncovered: no enabled test visits it',
    plural(n.forms, 'form'),
    n.linksIn > 0 ? `linked from ${plural(n.linksIn, 'other pattern')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

function summaryText(s: SummaryBox): string {
  const where = s.under ? ` under ${s.under}` : '';
  return `${plural(s.hidden, 'more pattern')}${where}, ${s.uncovered} uncovered: see the table`;
}

function Node(props: { n: NodeBox; title?: string }) {
  const { n } = props;
  const state = n.covered ? 'covered' : 'uncovered';
  const text = n.y + g.boxHeight / 2 + 4;
  return (
    <g class={`node ${state}${n.forms > 0 ? ' has-forms' : ''}`} data-pattern={n.pattern}>
      <title>{titleOf(n, props.title)}</title>
      <rect class="box" x={n.x} y={n.y} width={n.width} height={g.boxHeight} rx="3" />
      <rect
        class="band"
        x={n.x}
        y={n.y}
        width="8"
        height={g.boxHeight}
        fill={n.covered ? undefined : svgRef('sm', 'hatch')}
      />
      <text class="label" x={n.x + 14} y={text}>
        {n.label}
      </text>
      <text class="tag" x={n.x + n.width - 6} y={text} text-anchor="end">
        {tagOf(n)}
      </text>
    </g>
  );
}

/** The map as an image; `titles` gives a pattern's page title for its tooltip. */
export function SiteMapSvg(props: { layout: SiteMapLayout; titles: ReadonlyMap<string, string>; label: string }) {
  const { layout } = props;
  return (
    <svg
      class="sitemap"
      role="img"
      aria-labelledby="sitemap-title"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      width={layout.width}
      height={layout.height}
    >
      <title id="sitemap-title">{props.label}</title>
      <SvgDefs prefix="sm" marks={['hatch', 'arrow']} />
      {layout.connectors.map((c) => (
        <path class="tree" d={`M${c.x},${c.y1}V${c.y2}H${c.x2}`} />
      ))}
      {layout.arcs.map((a) => (
        <path
          class="link"
          d={`M${a.x},${a.y1}C${a.x + a.bulge},${a.y1} ${a.x + a.bulge},${a.y2} ${a.x + 2},${a.y2}`}
          marker-end={svgRef('sm', 'arrow')}
        >
          <title>{`${a.from} links to ${a.to}`}</title>
        </path>
      ))}
      {layout.nodes.map((n) => (
        <Node n={n} title={props.titles.get(n.pattern)} />
      ))}
      {layout.summaries.map((s) => (
        <g class="node summary">
          <rect class="box" x={s.x} y={s.y} width={s.width} height={g.boxHeight} rx="3" />
          <text class="tag" x={s.x + 14} y={s.y + g.boxHeight / 2 + 4}>
            {summaryText(s)}
          </text>
        </g>
      ))}
    </svg>
  );
}

/** What the picture's marks mean, in words beside small copies of them. */
export function SiteMapLegend(props: { navigation: string[]; arcsLeftOut: number }) {
  const swatch = (state: 'covered' | 'uncovered') => (
    <svg class="sitemap swatch" width="44" height="18" aria-hidden="true">
      <g class={`node ${state}`}>
        <rect class="box" x="1" y="1" width="42" height="16" rx="3" />
        <rect
          class="band"
          x="1"
          y="1"
          width="8"
          height="16"
          fill={state === 'uncovered' ? svgRef('sm', 'hatch') : undefined}
        />
      </g>
    </svg>
  );
  return (
    <ul class="legend plain">
      <li>{swatch('covered')} Covered: solid outline and band; an enabled test visits the page.</li>
      <li>
        {swatch('uncovered')} Uncovered: dashed outline, hatched band and the word "uncovered"; no enabled test visits
        it.
      </li>
      <li>"2 forms": the page has forms. A grey line joins a page to the pages under its path.</li>
      <li>
        An arrow on the right is a link from one page to another
        {props.navigation.length > 0 &&
          `; links to the pages most pages link to (${props.navigation.join(', ')}: the navigation) are not drawn`}
        {props.arcsLeftOut > 0 && `; ${props.arcsLeftOut} more links are not drawn`}.
      </li>
    </ul>
  );
}
