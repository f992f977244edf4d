import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPageCheck, stepActions, type Step } from '../../src/domain/steps.js';
import { exportPlaywrightSpec } from '../../src/browser/export/export.js';
import { refArgsOf, stepTool, parseStepArgs } from '../../src/browser/steps/kind.js';
import { RefAliases } from '../../src/browser/record/snapshot-refs.js';
import { withRealRefs } from '../../src/llm/agent-prompt.js';
import { kindOfAction, kindOfTool, stepKinds } from '../../src/browser/steps/registry.js';
import { loadPrograms } from '../../src/programs.js';
import { StepSchema } from '../../src/schemas/steps.js';
import { isRole, recordExample, withRefs } from '../support/kind-examples.js';

// The step registry, over every kind it holds (a generated matrix, not one example): each action of the Step union
// has exactly one kind; each kind's tool takes its example arguments, turns them into a step the API's Step schema
// accepts (in real Chromium, refs from the page's own snapshot), and the exporter writes that step; a call without
// a required argument is refused in words naming it.

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: loadPrograms().chromium, args: ['--no-sandbox', '--headless'] });
  page = await browser.newPage();
});
afterAll(async () => browser?.close());

describe('the step registry', () => {
  it('has exactly one kind for every action of the Step union, and one per tool name', () => {
    for (const action of stepActions) {
      expect(
        stepKinds.filter((k) => k.actions.includes(action)).map((k) => k.tool),
        action,
      ).toHaveLength(1);
      expect(kindOfAction(action)?.actions).toContain(action);
    }
    const covered = stepKinds.flatMap((k) => k.actions);
    expect([...covered].sort()).toEqual([...stepActions].sort());
    expect(new Set(stepKinds.map((k) => k.tool)).size).toBe(stepKinds.length);
    for (const kind of stepKinds) expect(kindOfTool(kind.tool)).toBe(kind);
  });

  it("judges a check's replay failure an assertion (a visual check's its own kind), and only a check's", () => {
    for (const kind of stepKinds)
      for (const action of kind.actions)
        expect(kind.failure === 'assertion' || kind.failure === 'visual', action).toBe(isPageCheck(action));
  });

  it.each(stepKinds.map((k) => [k.tool, k] as const))(
    '%s: every argument naming an element is marked a ref, and the agent maps each of them back',
    (_tool, kind) => {
      const example = kind.example as Record<string, unknown>;
      const naming = Object.keys(example).filter((k) => {
        const v = example[k];
        return isRole(v) || (Array.isArray(v) && v.length > 0 && v.every(isRole));
      });
      expect(refArgsOf(kind).map((a) => a.key)).toEqual(expect.arrayContaining(naming));

      const aliases = new RefAliases();
      aliases.apply('- list [ref=f3e30]:\n  - listitem [ref=f3e31]\n  - listitem [ref=f3e32]');
      const sent = Object.fromEntries(
        refArgsOf(kind).map(({ key, many }) => [key, many ? ['e2', 'e3'] : 'e1'] as const),
      );
      const real = withRealRefs(kind.tool, { ...example, ...sent }, aliases);
      for (const { key, many } of refArgsOf(kind)) expect(real[key], key).toEqual(many ? ['f3e31', 'f3e32'] : 'f3e30');
      // Nothing else is touched: an address, a text, a key stay as sent.
      for (const key of Object.keys(example).filter((k) => !(k in sent))) expect(real[key]).toEqual(example[key]);
    },
  );

  it.each(stepKinds.map((k) => [k.tool, k] as const))(
    '%s: a tool whose example arguments become a step the Step schema accepts and the exporter writes',
    async (_tool, kind) => {
      const tool = stepTool(kind);
      const parameters = (tool.type === 'function' ? tool.function.parameters : {}) as {
        properties: Record<string, unknown>;
        required: string[];
        additionalProperties: boolean;
      };
      expect(Object.keys(parameters.properties).at(-1)).toBe('description');
      expect(parameters.required).toContain('description');
      expect(parameters.additionalProperties).toBe(false);
      for (const key of Object.keys(kind.example as object)) expect(Object.keys(parameters.properties)).toContain(key);

      const args = await withRefs(page, kind.tool, kind.example as Record<string, unknown>);
      const step: Step = await recordExample(page, kind);
      const parsed = StepSchema.safeParse(step);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(kind.actions).toContain(step.action);
      expect(step.description).toBe(`Do ${kind.tool}`);
      if (kind.element === 'required') expect(step.locator).toBeTruthy();

      const spec = exportPlaywrightSpec({ name: kind.tool, baseUrl: 'https://shop.test/', steps: [step], configs: {} });
      expect(spec).toContain(`// 1. Do ${kind.tool}`);
      const statement = spec.slice(spec.indexOf(`// 1. Do ${kind.tool}`));
      expect(statement).not.toMatch(/cannot be exported|undefined/);

      // Every required argument but `description` (the tool's name stands in for it) is refused when left out.
      for (const key of parameters.required.filter((k) => k !== 'description')) {
        const { [key]: _left, ...rest } = args;
        await expect(
          (async () => kind.toStep(parseStepArgs(kind, rest), { page, description: 'x', baseUrl: '', timeoutMs: 1 }))(),
        ).rejects.toThrow(new RegExp(`${kind.tool}.*"${key}"|"${key}"`));
      }
    },
  );

  it('refuses an argument of the wrong shape in the words of its schema', () => {
    expect(() => parseStepArgs(kindOfTool('scroll')!, { ref: 'e1', direction: 'sideways' })).toThrow(
      'scroll direction must be one of up, down, left, right',
    );
    expect(() => parseStepArgs(kindOfTool('http_request')!, { method: 'FETCH', url: '/x' })).toThrow(
      /method: one of GET/,
    );
    expect(() => parseStepArgs(kindOfTool('check')!, { ref: 'e1', checked: 'yes' })).toThrow(/check: "checked"/);
  });
});
