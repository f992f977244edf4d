import { configReferences, type Step } from '../../domain/steps.js';
import { quote } from '../../domain/locators.js';
import { eventHelpers, usesTabs, withEvents } from './export-events.js';
import { accessLines, authHelpers, authImports, configLine, type ExportConfig } from './export-auth.js';
import { inboxConfigLine, inboxHelpers, inboxSetupLines } from './export-email.js';
import { kindOfAction } from '../steps/registry.js';
import { httpStepTexts } from '../steps/http-step.js';
import type { EnvironmentAccess } from '../../domain/environment-access.js';

export interface ExportInput {
  name: string;
  goal?: string | null;
  expectedResult?: string | null;
  /** The environment URL the test was recorded against (overridable with PROCTOR_BASE_URL). */
  baseUrl: string;
  steps: Step[];
  /**
   * The resume-from chain, root first and the direct dependency last. Their steps run first in the same page, as
   * a plan run hands its browser state on (cookies, localStorage and sessionStorage, which a Playwright
   * storage-state file would lose).
   */
  dependencies?: Array<{ name: string; steps: Step[] }>;
  /** Configs the steps reference: plain values are inlined, secrets are read from the environment. */
  configs: Record<string, ExportConfig>;
  /** The environment's basic auth, headers and cookies (secret values blank: the spec reads them from the environment). */
  access?: EnvironmentAccess;
}

/** A runnable `@playwright/test` spec of the recorded steps. */
export function exportPlaywrightSpec(input: ExportInput): string {
  const chain = input.dependencies ?? [];
  const allSteps = [...chain.flatMap((d) => d.steps), ...input.steps];
  const used = [
    ...new Set(
      allSteps.flatMap((s) => [
        ...configReferences([s.value ?? '', ...httpStepTexts(s)].join(' ')),
        ...(s.http?.save ?? []).map((v) => v.name),
      ]),
    ),
  ];
  const lines = [
    `import { test, expect } from '@playwright/test';`,
    ...authImports(input.configs, used),
    '',
    `// Exported from Proctor. Goal: ${oneLine(input.goal ?? input.name)}`,
    ...(input.expectedResult ? [`// Expected result: ${oneLine(input.expectedResult)}`] : []),
    `const baseURL = process.env.PROCTOR_BASE_URL ?? ${quote(input.baseUrl)};`,
  ];
  if (used.length > 0) {
    lines.push('const config: Record<string, string> = {');
    for (const name of used) lines.push(inboxConfigLine(name) ?? configLine(name, input.configs[name]));
    lines.push('};');
  }
  lines.push(...authHelpers(allSteps, input.configs, used), ...accessLines(input.access));
  lines.push(...eventHelpers(allSteps));
  lines.push(...inboxHelpers(allSteps, used));
  // Steps over several tabs reassign `page` as replay switches tabs; `pages` holds them in the order they opened.
  const tabs = usesTabs(allSteps);
  lines.push(
    '',
    `test(${quote(input.name)}, async ({ page${tabs ? ', context' : ''} }) => {`,
    ...(tabs ? ['  const pages = [page];'] : []),
    '  await page.goto(baseURL);',
  );
  lines.push(...inboxSetupLines(used));
  if (chain.length === 0) {
    lines.push(...stepLines(input.steps, '  '));
  } else {
    // Self-contained: the tests this one resumes from run first, in the same page, so it passes on its own.
    for (const dependency of chain) {
      lines.push(
        `  await test.step(${quote(`Resume-from dependency: ${dependency.name}`)}, async () => {`,
        ...stepLines(dependency.steps, '    '),
        '  });',
      );
    }
    lines.push(`  await test.step(${quote(input.name)}, async () => {`, ...stepLines(input.steps, '    '), '  });');
  }
  lines.push('});', '');
  return lines.join('\n');
}

function stepLines(steps: Step[], indent: string): string[] {
  return steps.flatMap((step, i) => [
    `${indent}// ${i + 1}. ${oneLine(step.description)}`,
    ...withEvents(step, i, statement(step), steps[i - 1], elementExpression(step)).map((l) => `${indent}${l}`),
  ]);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The step's element with every locator it has (`a.or(b)`), as replay tries them: a spec exported after a heal
 * still passes on the variant the test was recorded on.
 */
function elementExpression(step: Step): string | undefined {
  if (!step.locator) return undefined;
  const all = [step.locator, ...(step.fallbacks ?? [])];
  return all.length === 1
    ? `page.${step.locator}`
    : `${all.map((l) => `page.${l}`).join('.or(')}${')'.repeat(all.length - 1)}.first()`;
}

/** A JS expression for a step value: literal text joined with config lookups. */
function valueExpression(value: string): string {
  const parts = value.split(/(\{\{\s*[A-Za-z_][A-Za-z0-9_]*(?::[a-z0-9][a-z0-9-]*)?\s*\}\})/).filter((p) => p !== '');
  if (parts.length === 0) return "''";
  // `{{INBOX:name}}` is no identifier: it is looked up by key.
  const lookup = (name: string) => (/^[A-Za-z_]\w*$/.test(name) ? `config.${name}` : `config[${quote(name)}]`);
  return parts.map((p) => (/^\{\{/.test(p) ? lookup(configReferences(p)[0]!) : quote(p))).join(' + ');
}

function statement(step: Step): string {
  const kind = kindOfAction(step.action);
  // An action the exporter does not know fails the spec where it stands rather than being skipped.
  if (!kind) return `throw new Error(${quote(`${step.action} steps cannot be exported yet`)});`;
  return kind.exportStatement(step, {
    el: elementExpression(step),
    value: step.value !== undefined ? valueExpression(step.value) : "''",
    valueExpression,
    elementOf: (element) => elementExpression({ action: 'drag', description: '', ...element })!,
  });
}
