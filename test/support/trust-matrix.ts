// The adversarial matrix of verdicts: every step kind, crossed with every way replay can find its element,
// crossed with every way a bad build can change that element. Each cell is a page served over HTTP, recorded on
// its good build (the production recorder reads the target), then replayed by the production replay on the good
// build (it must pass clean) and on the bad one (it must fail, or report a regression; never pass silently). The
// cells that differ only in their bad build share one good build: it is recorded and replayed once for all of them. The
// heal cells go through the production healer and the real `openai` client to a scripted model over HTTP: an
// honest one that picks the recorded element or says it is gone, and a lying one that picks another of its kind.
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext } from 'playwright-core';
import { replaySteps, type ReplayResult } from '../../src/browser/replay/replay.js';
import { elementTarget } from '../../src/browser/record/record.js';
import { RunValues } from '../../src/domain/run-values.js';
import type { Step } from '../../src/domain/steps.js';
import { hasRegression } from '../../src/domain/verdicts.js';
import { createLlm } from '../../src/llm/client.js';
import { createLlmHealer } from '../../src/llm/heal.js';
import { lastPrompt } from './agent-script.js';
import { listenOnFreePort } from './net.js';
import type { ChatRequest, ScriptedLlm, ScriptedReply } from './scripted-llm.js';

export const stepKinds = ['click', 'fill', 'check', 'select', 'assert_visible', 'assert_text', 'wait_for'] as const;
export const locatorKinds = [
  'role+name',
  'test id',
  'id attribute',
  'css position',
  'text (named)',
  'text (no name)',
  'heal: honest',
  'heal: lying',
] as const;
export const mutations = ['removed', 'other name', 'name lost', 'error text', 'swapped'] as const;
type StepKind = (typeof stepKinds)[number];
type LocatorKind = (typeof locatorKinds)[number];
type Mutation = (typeof mutations)[number];

export interface Cell {
  id: number;
  step: StepKind;
  locator: LocatorKind;
  mutation: Mutation;
  /** The controls sit in an iframe: the step's locator carries the frame chain. */
  framed: boolean;
}

/**
 * `failed` and `regression` are the two honest answers to a bad build; `right element` is a pass on a build
 * whose swap left the recorded element working (the step used it, and its effect was checked); `SILENT PASS` is
 * what must never happen.
 */
export type Outcome = 'failed' | 'regression' | 'right element' | 'SILENT PASS';

export interface CellResult extends Cell {
  outcome: Outcome;
  /** The good build's replay: passed with no change (undefined for the lying model, which is never trusted there). */
  control?: 'clean' | 'NOT CLEAN';
  failureKind?: string;
  detail: string;
}

const actions = new Set<StepKind>(['click', 'fill', 'check', 'select']);
const applicable = (step: StepKind, locator: LocatorKind) =>
  !(locator.startsWith('text') && actions.has(step) && step !== 'click');

// Framed twins: the kinds whose element is checked after it is found (structural locators, a heal), in an iframe.
const framedSteps = new Set<StepKind>(['click', 'fill', 'assert_visible']);
const framedLocators = new Set<LocatorKind>(['role+name', 'test id', 'css position', 'heal: honest']);

/** Every applicable cell, in a stable order; then the framed twins. */
export function cells(): Cell[] {
  const out: Cell[] = [];
  for (const framed of [false, true])
    for (const step of stepKinds)
      for (const locator of locatorKinds) {
        if (!applicable(step, locator) || (framed && !(framedSteps.has(step) && framedLocators.has(locator)))) continue;
        for (const mutation of mutations) out.push({ id: out.length, step, locator, mutation, framed });
      }
  return out;
}

const frameTitle = 'Settings frame';
/** The chain a framed cell's locators start with. */
const inFrame = (cell: Cell) => (cell.framed ? `locator('iframe[title="${frameTitle}"]').contentFrame().` : '');

// --- the pages ---------------------------------------------------------------------------------------------------

interface Labels {
  target: string;
  neighbour: string;
  other: string;
  error: string;
}
const labels: Record<StepKind, Labels> = {
  click: { target: 'Save changes', neighbour: 'Delete account', other: 'Close account', error: 'Saving failed' },
  fill: { target: 'Email address', neighbour: 'Phone number', other: 'Postal code', error: 'Invalid input' },
  check: {
    target: 'Subscribe to news',
    neighbour: 'Accept terms',
    other: 'Hide notifications',
    error: 'Subscription failed',
  },
  select: { target: 'Country', neighbour: 'Language', other: 'Currency', error: 'Options failed to load' },
  assert_visible: {
    target: 'The group “QA Team” was added',
    neighbour: 'Your draft is saved',
    other: 'The group “QA Team” was removed',
    error: 'Group with this Name already exists.',
  },
  assert_text: {
    target: 'The group “QA Team” was added',
    neighbour: 'Your draft is saved',
    other: 'The group “QA Team” was removed',
    error: 'Group with this Name already exists.',
  },
  wait_for: {
    target: 'The group “QA Team” was added',
    neighbour: 'Your draft is saved',
    other: 'The group “QA Team” was removed',
    error: 'Group with this Name already exists.',
  },
};
const typed = 'ada@example.com';
const chosen = 'Sweden';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const js = (s: string) => JSON.stringify(s).replace(/"/g, '&quot;');

/** What activating a control logs, by the label it acts for. */
function effect(step: StepKind, label: string): string {
  if (step === 'click') return `${label} done`;
  if (step === 'fill') return `${label}: ${typed}`;
  if (step === 'check') return `${label} on`;
  return `${label}: ${chosen}`;
}

interface Slot {
  /** The visible label or text; '' when the element lost it. */
  label: string;
  /** What the element does, by the label it was built for (a lost name keeps its behaviour). */
  acts: string;
  attrs: string;
}

function control(step: StepKind, locator: LocatorKind, slot: Slot, n: number): string {
  const { label, acts, attrs } = slot;
  const log = (expr: string) => `document.getElementById('log').textContent=${expr}`;
  const id = /(?:^|\s)id="([^"]+)"/.exec(attrs)?.[1] ?? `c${n}`;
  // A lost name: the text stays beside the control, but nothing associates it any more.
  const caption = (tag: 'label' | 'span') =>
    tag === 'label' ? `<label for="${id}">${esc(label)}</label>` : `<span>${esc(acts)}</span>`;
  const named = label !== '';
  switch (step) {
    case 'click':
      if (locator === 'text (no name)')
        return `<div class="chip" ${attrs} onclick="${log(js(effect(step, acts)))}">${esc(label)}</div>`;
      return `<button ${attrs} onclick="${log(js(effect(step, acts)))}">${named ? esc(label) : '<svg aria-hidden="true" width="12" height="12"></svg>'}</button>`;
    case 'fill':
      return `${caption(named ? 'label' : 'span')}<input id="${id}" ${attrs.replace(/(^|\s)id="[^"]+"/, '')} oninput="${log(`${js(`${acts}: `)}+this.value`)}">`;
    case 'check':
      return `<input type="checkbox" id="${id}" ${attrs.replace(/(^|\s)id="[^"]+"/, '')} onchange="${log(`this.checked?${js(`${acts} on`)}:''`)}">${caption(named ? 'label' : 'span')}`;
    case 'select':
      return `${caption(named ? 'label' : 'span')}<select id="${id}" ${attrs.replace(/(^|\s)id="[^"]+"/, '')} onchange="${log(`${js(`${acts}: `)}+this.value`)}"><option>Norway</option><option>Sweden</option></select>`;
    default: {
      const heading = locator === 'role+name' || locator === 'text (named)';
      return heading
        ? `<h2 ${attrs}>${esc(label)}</h2>`
        : `<li ${attrs}>${esc(label)} <button type="button">Dismiss</button></li>`;
    }
  }
}

/** The cell's page: its controls, or (framed) a page holding them in an iframe served from `innerUrl`. */
export function page(cell: Cell, build: 'good' | 'bad', part: 'page' | 'inner' = 'page'): string {
  if (cell.framed && part === 'page') {
    return `<!doctype html><html lang="en"><head><title>Cell ${cell.id}</title></head><body><main><h1>Account</h1><iframe title="${frameTitle}" src="/cell/${cell.id}/${build}/inner" width="600" height="300"></iframe></main></body></html>`;
  }
  const l = labels[cell.step];
  const targetAttrs = 'data-testid="target" id="target-id"';
  const neighbourAttrs = 'data-testid="neighbour" id="neighbour-id"';
  let first: Slot | undefined = { label: l.target, acts: l.target, attrs: targetAttrs };
  let second: Slot = { label: l.neighbour, acts: l.neighbour, attrs: neighbourAttrs };
  if (build === 'bad') {
    if (cell.mutation === 'removed') first = undefined;
    if (cell.mutation === 'other name') first = { ...first!, label: l.other, acts: l.other };
    if (cell.mutation === 'error text') first = { ...first!, label: l.error, acts: l.error };
    if (cell.mutation === 'name lost') first = { ...first!, label: '' };
    if (cell.mutation === 'swapped')
      [first, second] = [
        { ...second, attrs: targetAttrs },
        { ...first!, attrs: neighbourAttrs },
      ];
  }
  const assertion = !actions.has(cell.step);
  const slots = [first, second]
    .filter((s): s is Slot => Boolean(s))
    .map((s, i) => control(cell.step, cell.locator, s, i));
  const panel = assertion
    ? `<ul class="panel">${slots.join('')}</ul>`
    : `<div class="panel">${slots.map((s) => `<div class="slot">${s}</div>`).join('')}</div>`;
  // A wait_for's element arrives late, as a toast after a save does.
  const body =
    cell.step === 'wait_for'
      ? `<div id="late"></div><script>setTimeout(() => { document.getElementById('late').innerHTML = ${JSON.stringify(panel)}; }, 300);</script>`
      : panel;
  return `<!doctype html><html lang="en"><head><title>Cell ${cell.id}</title></head><body><main><h1>Settings</h1>${body}<p id="log" role="status"></p></main></body></html>`;
}

/** How the cell's step finds its element. */
function locatorFor(cell: Cell): string {
  return inFrame(cell) + locatorInPage(cell);
}

function locatorInPage(cell: Cell): string {
  const l = labels[cell.step];
  const role =
    { click: 'button', fill: 'textbox', check: 'checkbox', select: 'combobox' }[cell.step as 'click'] ?? 'heading';
  const assertion = !actions.has(cell.step);
  switch (cell.locator) {
    case 'role+name':
      return `getByRole('${role}', { name: ${q(l.target)} })`;
    case 'test id':
      return "getByTestId('target')";
    case 'id attribute':
      return "locator('#target-id')";
    case 'css position':
      return assertion
        ? "locator('.panel > :nth-child(1)')"
        : `locator('.panel > .slot:nth-child(1) > ${{ click: 'button', fill: 'input', check: 'input', select: 'select' }[cell.step as 'click']}')`;
    case 'text (named)':
    case 'text (no name)':
      return `getByText(${q(l.target)})`;
    default:
      // Healing cells: the recorded locators no longer match anything on either build.
      return "getByTestId('renamed-in-this-build')";
  }
}
const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The cell's test as burn-in would record it: the step on its element, then (for an action) a check of its effect. */
async function record(context: BrowserContext, cell: Cell, url: string): Promise<Step[]> {
  const p = await context.newPage();
  try {
    await p.goto(url);
    const l = labels[cell.step];
    const on = cell.framed
      ? p.locator(`iframe[title="${frameTitle}"]`).contentFrame().locator('[data-testid="target"]')
      : p.locator('[data-testid="target"]');
    await on.waitFor();
    const target = await elementTarget(on);
    const description = `cell ${cell.id} ${cell.locator === 'heal: lying' ? 'lying' : 'honest'}: ${cell.step} ${l.target}`;
    const step: Step = {
      action: cell.step,
      locator: locatorFor(cell),
      fallbacks: [],
      ...(target && { target }),
      description,
    };
    if (cell.step === 'fill') step.value = typed;
    if (cell.step === 'select') step.value = chosen;
    if (cell.step === 'assert_text') step.value = l.target;
    if (!actions.has(cell.step)) return [step];
    return [
      step,
      {
        action: 'assert_text',
        locator: `${inFrame(cell)}locator('#log')`,
        value: effect(cell.step, l.target),
        description: 'The action took effect',
      },
    ];
  } finally {
    await p.close();
  }
}

// --- the scripted healer ------------------------------------------------------------------------------------------

const indent = (line: string) => /^\s*/.exec(line)![0].length;

/** The ref of the element a snapshot line belongs to: its own, or its nearest enclosing element's. */
function refAt(lines: string[], i: number): string | undefined {
  for (let j = i; j >= 0; j--) {
    if (j < i && indent(lines[j]!) >= indent(lines[i]!)) continue;
    const ref = /\[ref=([^\]]+)\]/.exec(lines[j]!)?.[1];
    if (ref) return ref;
  }
  return undefined;
}

/**
 * The model: honest picks the line that is the recorded element (its role and name, or its text), or says it is
 * gone; lying picks another element of the recorded kind, or any element, and says it is the same one.
 */
export function healerModel(req: ChatRequest): ScriptedReply {
  const prompt = lastPrompt(req);
  const lying = /^Step intent: cell \d+ lying/m.test(prompt);
  const recorded = /^Recorded element: ([\w-]+)(?: "(.*)")?$/m.exec(prompt);
  const role = recorded?.[1] ?? '';
  const name = recorded?.[2];
  const expected = /^Step intent: cell \d+ \w+: \w+ (.*)$/m.exec(prompt)?.[1] ?? '';
  const lines = prompt.slice(prompt.indexOf('Snapshot:')).split('\n');
  const isRecorded = (line: string) => (name ? line.includes(`${role} "${name}"`) : line.includes(expected));
  const pick = (ref: string | undefined, reason: string): ScriptedReply =>
    ref
      ? { toolCalls: [{ name: 'select_element', arguments: { ref, reason } }] }
      : { toolCalls: [{ name: 'not_found', arguments: { reason: 'nothing like it' } }] };
  if (!lying) {
    const i = lines.findIndex(isRecorded);
    return pick(i >= 0 ? refAt(lines, i) : undefined, 'same role and name as recorded');
  }
  const sameKind = lines.findIndex(
    (line) =>
      line.trimStart().startsWith(`- ${role}`) &&
      /\[ref=/.test(line) &&
      !isRecorded(line) &&
      !/heading "Settings"/.test(line),
  );
  const any = lines.findIndex(
    (line) =>
      /- (listitem|button|textbox|checkbox|combobox|heading)/.test(line) &&
      /\[ref=/.test(line) &&
      !isRecorded(line) &&
      !/"Settings"/.test(line),
  );
  return pick(refAt(lines, sameKind >= 0 ? sameKind : any), 'it is the same element, trust me');
}

// --- running --------------------------------------------------------------------------------------------------------

export interface Matrix {
  url: string;
  stop(): Promise<void>;
}

export async function serveMatrix(all: Cell[]): Promise<Matrix> {
  const server: Server = createServer((req, res) => {
    const m = /^\/cell\/(\d+)\/(good|bad)(\/inner)?$/.exec(req.url ?? '');
    const cell = m ? all[Number(m[1])] : undefined;
    if (!cell) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(page(cell, m![2] as 'good' | 'bad', m![3] ? 'inner' : 'page'));
  });
  const port = await listenOnFreePort(server);
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

async function replayOn(
  context: BrowserContext,
  steps: Step[],
  url: string,
  cell: Cell,
  llm: ScriptedLlm,
): Promise<ReplayResult> {
  const page = await context.newPage();
  try {
    const heal = cell.locator.startsWith('heal')
      ? createLlmHealer(
          createLlm({ apiKey: llm.apiKey, baseURL: llm.baseURL, model: 'scripted-model' }, { maxRetries: 0 })!,
          {},
        )
      : undefined;
    // Every cell gets the time a busy machine needs (a framed cell's controls arrive a document later): at 1,200 ms a
    // good build's click timed out in a clean-clone run with the whole suite on two cores. A bad build fails on what
    // the page shows, not on the time it is given.
    const timeoutMs = 3_000;
    const result = await replaySteps(page, steps, {
      startUrl: url,
      baseUrl: url,
      values: new RunValues(),
      timeoutMs,
      probeMs: 400,
      heal,
    });
    if (result.status === 'PASSED' || !url.endsWith('/good')) return result;
    // A good build that failed is a false verdict: say what each frame held, so the cause can be found from the full
    // run's output. (It found one: a framed check whose scope came after the probe read the top page instead of its
    // frame; test/e2e/replay-late-frame.test.ts.)
    const frames = await Promise.all(
      page.frames().map(async (f) => {
        const log = await f
          .locator('#log')
          .first()
          .textContent({ timeout: 500 })
          .catch(() => '(no #log)');
        return `${f === page.mainFrame() ? 'main' : 'frame'} ${f.url()} #log=${JSON.stringify(log)}`;
      }),
    );
    return { ...result, error: `${result.error ?? ''} [frames now: ${frames.join('; ')}]` };
  } finally {
    await page.close();
  }
}

function judge(cell: Cell, bad: ReplayResult): Pick<CellResult, 'outcome' | 'failureKind' | 'detail'> {
  if (bad.status === 'FAILED') return { outcome: 'failed', failureKind: bad.failureKind, detail: bad.error ?? '' };
  if (hasRegression(bad.changes))
    return { outcome: 'regression', detail: bad.changes.map((c) => c.summary).join('; ') };
  // A swap leaves the recorded element on the page, working: a pass is right only if the step used it. An action's
  // effect check proves that, and an assert_text's text on the page is its whole expectation; an assertion found by
  // its content (role and name, text, an honest heal) shows it; one found by a structural locator must have said
  // that it switched to the recorded element.
  if (cell.mutation === 'swapped') {
    const byContent = ['role+name', 'text (named)', 'text (no name)', 'heal: honest'].includes(cell.locator);
    const switched = bad.healed.some((h) => h.index === 0 && /^(.*\.contentFrame\(\)\.)?getBy(Role|Text)\(/.test(h.to));
    if (actions.has(cell.step) || cell.step === 'assert_text' || byContent || switched) {
      return {
        outcome: 'right element',
        detail: bad.changes.map((c) => c.summary).join('; ') || 'found by its recorded role and name',
      };
    }
  }
  return { outcome: 'SILENT PASS', detail: bad.changes.map((c) => c.summary).join('; ') || 'no change reported' };
}

/**
 * The cells that share a good build: the same step, found the same way, framed or not, one cell per bad build. Their
 * good builds are the same page and their recordings the same steps, so each group is recorded and replayed on its
 * good build once; each cell's bad build is replayed on its own.
 */
export function goodBuildGroups(all: Cell[]): Cell[][] {
  const groups = new Map<string, Cell[]>();
  for (const cell of all) {
    const key = `${cell.step}|${cell.locator}|${cell.framed}`;
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.values()];
}

/** Runs every cell, `concurrency` groups at a time; the scripted model must answer with `healerModel` for every request. */
export async function runMatrix(
  browser: Browser,
  llm: ScriptedLlm,
  all: Cell[],
  matrix: Matrix,
  concurrency = 8,
): Promise<CellResult[]> {
  const results: CellResult[] = [];
  const groups = goodBuildGroups(all);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < groups.length; i = next++) {
      const group = groups[i]!;
      const first = group[0]!;
      const goodUrl = `${matrix.url}/cell/${first.id}/good`;
      // One context for the group, a page for each recording and replay: the pages keep nothing (no cookie, no
      // storage), and each cell's bad build has a URL of its own.
      const context = await browser.newContext();
      try {
        const steps = await record(context, first, goodUrl);
        const lying = first.locator === 'heal: lying';
        const good = lying ? undefined : await replayOn(context, steps, goodUrl, first, llm);
        const control = good && (good.status === 'PASSED' && good.changes.length === 0 ? 'clean' : 'NOT CLEAN');
        for (const cell of group) {
          const bad = await replayOn(context, steps, `${matrix.url}/cell/${cell.id}/bad`, cell, llm);
          results[cell.id] = {
            ...cell,
            ...judge(cell, bad),
            ...(control && { control }),
            ...(control === 'NOT CLEAN' && { detail: `good build: ${good!.error ?? JSON.stringify(good!.changes)}` }),
          };
        }
      } finally {
        await context.close();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

const letter: Record<Outcome, string> = { failed: 'F', regression: 'R', 'right element': '=', 'SILENT PASS': 'SILENT' };

/** The matrix as a table: a row per step kind and locator kind, a column per bad build. */
export function matrixTable(results: CellResult[]): string {
  const rows = new Map<string, CellResult[]>();
  const key = (r: CellResult) => `${r.step} × ${r.locator}${r.framed ? ' (in iframe)' : ''}`;
  for (const r of results) rows.set(key(r), [...(rows.get(key(r)) ?? []), r]);
  const header = ['step × found by', ...mutations, 'good build'];
  const body = [...rows].map(([key, rs]) => [
    key,
    ...mutations.map((m) => letter[rs.find((r) => r.mutation === m)!.outcome]),
    rs[0]!.control ?? 'n/a (lying)',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function summary(results: CellResult[]): Record<Outcome | 'cells' | 'control not clean', number> {
  const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
  return {
    cells: results.length,
    failed: count('failed'),
    regression: count('regression'),
    'right element': count('right element'),
    'SILENT PASS': count('SILENT PASS'),
    'control not clean': results.filter((r) => r.control === 'NOT CLEAN').length,
  };
}
