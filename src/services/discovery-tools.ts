// The discovery tools of the chat and MCP (issue 34, item 4): "what does my app have that no test covers?". They start
// a discovery, read a map, and list what the enabled tests do not cover, as compact text for a model: every answer is
// bounded (at most `listed` patterns and forms, the rest counted), so a large application does not flood the context.
import { listDiscoveries, type DiscoveryRow } from '../db/queries/discoveries.js';
import type { DiscoveryBudget } from '../domain/discovery.js';
import type { DiscoveryMap } from '../domain/discovery-map.js';
import { requireApplication } from './applications.js';
import { applicationCoverage } from './coverage.js';
import { createDiscovery, requireDiscovery } from './discoveries.js';
import { getDiscoveryMap } from './discovery-map.js';
import { ChatToolError, type ToolContext } from './tools/tool.js';

/** Patterns (and forms) listed in one answer at most; the others are counted. */
export const listed = 40;

const more = (total: number) => (total > listed ? `\n… and ${total - listed} more` : '');
const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export async function startDiscoveryTool(
  ctx: ToolContext,
  input: {
    applicationShortId: string;
    environmentShortId?: string;
    budget?: Partial<DiscoveryBudget>;
    intent?: string;
  },
): Promise<string> {
  if (!ctx.temporal) throw new ChatToolError('discoveries cannot be started from here (no Temporal client)');
  const d = await createDiscovery({ ...ctx, temporal: ctx.temporal }, ctx.projectId, input.applicationShortId, input);
  const { pages, actions, minutes } = d.budget;
  return [
    `Discovery ${d.shortId} started on ${d.startUrl} (status ${d.status}; budget ${pages} pages, ${actions} actions, ${minutes} minutes).`,
    `Follow it: call discovery_map with discoveryShortId ${d.shortId} (its status says when it has COMPLETED), ` +
      `or GET /v1/discoveries/${d.shortId}; once it has completed, uncovered lists what no test covers.`,
  ].join('\n');
}

/** The discovery named, else the application's latest COMPLETED one; one of the two is required. */
async function discoveryOf(
  ctx: ToolContext,
  input: { discoveryShortId?: string; applicationShortId?: string },
): Promise<DiscoveryRow> {
  if (input.discoveryShortId) return requireDiscovery(ctx, ctx.projectId, input.discoveryShortId);
  if (!input.applicationShortId) throw new ChatToolError('give discoveryShortId or applicationShortId');
  const app = await requireApplication(ctx, ctx.projectId, input.applicationShortId);
  const latest = (await listDiscoveries(ctx.db, ctx.projectId, app.id)).find((d) => d.status === 'COMPLETED');
  if (!latest)
    throw new ChatToolError(
      `application ${app.shortId} has no completed discovery yet: start one with start_discovery`,
    );
  return latest;
}

const formCount = (map: DiscoveryMap) => map.patterns.reduce((n, p) => n + p.forms.length, 0);

export async function discoveryMapTool(
  ctx: ToolContext,
  input: { discoveryShortId?: string; applicationShortId?: string },
): Promise<string> {
  const row = await discoveryOf(ctx, input);
  const map = await getDiscoveryMap(ctx, ctx.projectId, row.short_id);
  const d = map.discovery;
  const head =
    `Discovery ${d.shortId} of ${d.applicationShortId} on ${d.startUrl}: ${d.status}` +
    `${d.stopReason ? ` (stopped: ${d.stopReason})` : ''}${d.error ? ` (${clip(d.error, 200)})` : ''}; ` +
    `${d.pages} page(s) visited, ${map.patterns.length} page pattern(s), ${formCount(map)} form(s), ${map.links.length} link(s) between patterns.`;
  const lines = map.patterns.slice(0, listed).map((p) => {
    const title = p.pages.find((x) => x.title)?.title ?? '';
    const forms = p.forms.map((f) => `${clip(f.name || '(unnamed)', 40)}${f.search ? ' [search]' : ''}`);
    return `- ${p.pattern}${title ? ` "${clip(title)}"` : ''}: ${p.pages.length} page(s)${forms.length ? `; forms: ${forms.slice(0, 5).join(', ')}${forms.length > 5 ? ` +${forms.length - 5}` : ''}` : ''}`;
  });
  return [head, ...lines].join('\n') + more(map.patterns.length);
}

export async function uncoveredTool(ctx: ToolContext, input: { applicationShortId: string }): Promise<string> {
  const row = await discoveryOf(ctx, input);
  const map = await getDiscoveryMap(ctx, ctx.projectId, row.short_id);
  const coverage = await applicationCoverage(ctx, {
    projectId: ctx.projectId,
    applicationId: row.application_id,
    environmentUrl: row.start_url,
    map: map.patterns.map((p) => ({ pattern: p.pattern, title: p.pages[0]?.title, forms: p.forms })),
  });
  const { patterns, forms } = coverage.totals;
  const pages = coverage.patterns.filter((p) => !p.covered);
  const openForms = coverage.forms.filter((f) => !f.covered);
  const lines = [
    `From discovery ${row.short_id} (finished ${row.finished_at?.toISOString() ?? '?'}): ` +
      `${patterns.uncovered} of ${patterns.total} page pattern(s) and ${forms.uncovered} of ${forms.total} form(s) are covered by no enabled test.`,
  ];
  if (pages.length > 0) lines.push('Pages no test visits:', ...pages.slice(0, listed).map((p) => `- ${p.pattern}`));
  if (pages.length > listed) lines.push(`… and ${pages.length - listed} more`);
  if (openForms.length > 0)
    lines.push(
      'Forms no test acts on:',
      ...openForms
        .slice(0, listed)
        .map(
          (f) =>
            `- ${clip(f.name || '(unnamed)', 40)} (${f.method.toUpperCase()}) on ${f.patterns.slice(0, 3).join(', ')}`,
        ),
    );
  if (openForms.length > listed) lines.push(`… and ${openForms.length - listed} more`);
  return lines.join('\n');
}
