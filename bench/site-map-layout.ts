// The coverage page's picture of a large application (issue 34), pure computation: a map of BENCH_PATTERNS page
// patterns (default 1,000) in a tree of 40 sections (list, detail, edit and a few deeper pages each), a third of
// them uncovered, a header linking the sections from every page and each list linking its items. Prints the median
// and p95 of layoutSiteMap over BENCH_ITERATIONS runs, what it drew, and the size of the SVG it renders to (raw and
// gzipped, as the page is sent).
//
//   node --import tsx bench/site-map-layout.ts
import { gzipSync } from 'node:zlib';
import { layoutSiteMap, type LayoutPattern } from '../src/domain/site-map-layout.js';
import { SiteMapSvg } from '../src/web/site-map-svg.js';
import { envInt, fixed, median, percentile } from './support.js';

const total = envInt('BENCH_PATTERNS', 1_000);
const iterations = envInt('BENCH_ITERATIONS', 50);
const sections = 40;

const patterns: LayoutPattern[] = [{ pattern: '/', covered: true, forms: 1 }];
for (let i = 1; patterns.length < total; i++) {
  const section = `/section-${i % sections}`;
  const depth = Math.floor(i / sections);
  const path = depth === 0 ? section : `${section}/${['{id}', 'new', 'edit', 'reports', 'export'][depth % 5]}-${depth}`;
  patterns.push({ pattern: path, covered: i % 3 !== 0, forms: i % 4 });
}
const links = patterns.flatMap((p) => [
  ...Array.from({ length: sections }, (_, s) => ({ from: p.pattern, to: `/section-${s}` })),
  ...patterns
    .filter((q) => q.pattern.startsWith(`${p.pattern}/`) && p.pattern !== '/')
    .slice(0, 5)
    .map((q) => ({ from: p.pattern, to: q.pattern })),
]);

const ms: number[] = [];
let layout = layoutSiteMap(patterns, links);
for (let i = 0; i < iterations + 3; i++) {
  const start = performance.now();
  layout = layoutSiteMap(patterns, links);
  if (i >= 3) ms.push(performance.now() - start);
}
const titles = new Map(patterns.map((p) => [p.pattern, `Title of ${p.pattern}`]));
const svg = String(SiteMapSvg({ layout, titles, label: 'Site map' }));

console.log(`site map layout of ${patterns.length} patterns, ${links.length} links (${iterations} runs):`);
console.log(`  layoutSiteMap   median ${fixed(median(ms), 2)} ms   p95 ${fixed(percentile(ms, 95), 2)} ms`);
console.log(
  `  drawn: ${layout.nodes.length} boxes, ${layout.summaries.length} summaries (${layout.summaries.reduce((n, s) => n + s.hidden, 0)} patterns counted in them), ${layout.arcs.length} arrows, ${layout.navigation.length} navigation targets; ${layout.width}x${layout.height} px`,
);
console.log(`  SVG: ${svg.length} bytes, ${gzipSync(svg).length} gzipped`);
