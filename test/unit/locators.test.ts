import { describe, expect, it } from 'vitest';
import { LocatorSyntaxError, parseLocator, quote } from '../../src/domain/locators.js';
import { compactSnapshot } from '../../src/browser/record/snapshot.js';
import { exportPlaywrightSpec } from '../../src/browser/export/export.js';
import { substituteConfigs } from '../../src/domain/steps.js';

describe('locator expressions', () => {
  it('parses what Playwright normalize() produces', () => {
    expect(parseLocator("getByRole('button', { name: 'Add Coffee mug to cart' })")).toEqual([
      { method: 'getByRole', args: ['button', { name: 'Add Coffee mug to cart' }] },
    ]);
    expect(
      parseLocator("locator('iframe').contentFrame().getByRole('button', { name: 'In frame', exact: true }).nth(2)"),
    ).toEqual([
      { method: 'locator', args: ['iframe'] },
      { method: 'contentFrame', args: [] },
      { method: 'getByRole', args: ['button', { name: 'In frame', exact: true }] },
      { method: 'nth', args: [2] },
    ]);
    const [call] = parseLocator('getByText(/total: \\d+/i)');
    expect(call!.args[0]).toEqual(/total: \d+/i);
  });

  it('round-trips quoted text with quotes and backslashes', () => {
    const text = 'It\'s a \\ "test"\nline';
    expect(parseLocator(`getByText(${quote(text)})`)[0]!.args[0]).toBe(text);
  });

  it('refuses anything that is not a locator call, so stored steps can never run code', () => {
    for (const bad of [
      "evaluate('1')",
      "getByRole('x').click()",
      'constructor.constructor("x")()',
      "getByRole('a'); process.exit()",
      'getByRole(x)',
    ]) {
      expect(() => parseLocator(bad), bad).toThrow(LocatorSyntaxError);
    }
  });
});

describe('snapshot compaction', () => {
  it('caps a large page but keeps every element with a ref, iframe content included', () => {
    const items = Array.from(
      { length: 400 },
      (_, i) => `  - listitem [ref=e${i + 10}]:\n    - button "Buy ${i}" [ref=e${i + 1000}] [cursor=pointer]`,
    );
    const snapshot = [
      '- list [ref=e2]:',
      ...items,
      '- iframe [ref=e5]:',
      '  - button "Pay" [ref=f1e2]',
      '- text: footer',
    ].join('\n');
    const { text, omitted } = compactSnapshot(snapshot, 4_000);
    expect(text.length).toBeLessThanOrEqual(4_200);
    expect(text).toContain('button "Buy 0" [ref=e1000]');
    expect(text).toContain('# 375 more listitem items');
    expect(text).toContain('button "Pay" [ref=f1e2]');
    expect(text).not.toContain('[cursor=pointer]');
    expect(omitted).toBe(0);
  });

  it('shows a page that fits whole, however many similar siblings it has', () => {
    const items = Array.from({ length: 40 }, (_, i) => `  - listitem [ref=e${i + 10}]: Entry ${i + 1}`);
    const { text, omitted } = compactSnapshot(['- list [ref=e2]:', ...items].join('\n'), 6_000);
    expect(text).toContain('Entry 40');
    expect(text).not.toMatch(/more listitem items/);
    expect(omitted).toBe(0);
  });

  it('says how much it cut when a page is still too large', () => {
    const lines = Array.from(
      { length: 300 },
      (_, i) => `- heading "Section ${i} with a long title for padding" [level=2] [ref=e${i}]`,
    ).join('\n');
    const { text, omitted } = compactSnapshot(
      lines.replace(/heading/g, (m, o: number) => (o % 2 ? 'heading' : 'paragraph')),
      2_000,
    );
    expect(text.length).toBeLessThan(2_200);
    expect(omitted).toBeGreaterThan(0);
    expect(text).toMatch(/# \d+ more lines not shown/);
  });
});

describe('config references', () => {
  it('substitutes known names and leaves unknown ones visible', () => {
    expect(substituteConfigs('{{USER}}:{{ PASS }}@{{MISSING}}', { USER: 'ada', PASS: 'x' })).toBe('ada:x@{{MISSING}}');
  });

  it('exports secrets as environment lookups and inlines plain configs', () => {
    const spec = exportPlaywrightSpec({
      name: 'Login',
      baseUrl: 'https://shop.test/login',
      steps: [
        { action: 'fill', locator: "getByLabel('Email')", value: '{{EMAIL}}', description: 'email' },
        { action: 'fill', locator: "getByLabel('Password')", value: 'pw: {{PASSWORD}}', description: 'password' },
        { action: 'assert_url', value: '/shop/products?x=1', description: 'url' },
      ],
      configs: { EMAIL: { value: 'ada@shop.test', isSecret: false }, PASSWORD: { value: '', isSecret: true } },
    });
    expect(spec).toContain("EMAIL: 'ada@shop.test',");
    expect(spec).toContain("PASSWORD: process.env.PASSWORD ?? '',");
    expect(spec).toContain("await page.getByLabel('Password').fill('pw: ' + config.PASSWORD);");
    expect(spec).toContain('await expect(page).toHaveURL(/\\/shop\\/products\\?x=1/);');
  });
});
