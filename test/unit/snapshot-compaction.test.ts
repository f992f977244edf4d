import { describe, expect, it } from 'vitest';
import { compactSnapshot, foundText } from '../../src/browser/record/snapshot.js';
import { RefAliases, UnknownAliasError } from '../../src/browser/record/snapshot-refs.js';
import { findInSnapshot } from '../../src/browser/record/snapshot-tree.js';
import fc from 'fast-check';
import { countTokens, fitsTokens } from '../../src/llm/token-count.js';

// Issues 25 and 32: the snapshot fits a budget in the model's tokens without hiding what the agent needs: long runs
// collapse with a note that `find` reaches them, a table row's cells stay together, wrappers lose only their refs,
// and refs are short aliases mapped back exactly. find answers with elements (an item's line says its whole text).

const listItem = (i: number) => [
  `    - listitem [ref=f1e${2 * i + 10}]:`,
  `      - text: Item ${i}, a product`,
  `      - button "Buy item ${i}" [ref=f1e${2 * i + 11}] [cursor=pointer]`,
];
const row = (i: number) => [
  `      - row [ref=f1e${5_000 + 6 * i}]:`,
  `        - cell "Order ${10_000 + i}" [ref=f1e${5_001 + 6 * i}]`,
  `        - cell "Customer ${i}" [ref=f1e${5_002 + 6 * i}]`,
  `        - cell [ref=f1e${5_003 + 6 * i}]:`,
  `          - button "Edit order ${10_000 + i}" [ref=f1e${5_004 + 6 * i}]`,
];
const largePage = [
  '- main [ref=f1e2]:',
  '  - list "Catalogue" [ref=f1e5]:',
  ...Array.from({ length: 1_500 }, (_, i) => listItem(i + 1)).flat(),
  '  - table "Orders" [ref=f1e4000]:',
  '    - rowgroup [ref=f1e4001]:',
  ...Array.from({ length: 300 }, (_, i) => row(i)).flat(),
  '  - generic [ref=f1e9000] [cursor=pointer]:',
  '    - text: A clickable card',
  '  - iframe [ref=f1e9001]:',
  '    - button "Pay inside iframe" [ref=f2e4]',
].join('\n');
const tokens = (text: string) => countTokens(new RefAliases().apply(text));

describe('snapshot compaction in tokens', () => {
  it('fits a 1,500-item, 300-row page into 450 tokens, keeping the first item, a whole row, the iframe and notes that find reaches the rest', () => {
    const { text } = compactSnapshot(largePage, 450, tokens);
    expect(tokens(text)).toBeLessThanOrEqual(450);
    expect(text).toContain('button "Buy item 1" [ref=f1e13]');
    expect(text).toMatch(/- # 149\d more listitem items \(find shows them by text\)/);
    expect(text).toMatch(/- # 29\d more row items \(find shows them by text\)/);
    // A row is shown whole: all its cells and the button in the last one.
    expect(text).toContain('- cell "Customer 0"');
    expect(text).toContain('button "Edit order 10000"');
    expect(text).toContain('button "Pay inside iframe" [ref=f2e4]');
    // Wrappers keep their line but not their ref; a clickable one keeps its ref, list items keep theirs.
    expect(text).toContain('    - rowgroup:');
    expect(text).toContain('      - row:');
    expect(text).toContain('        - cell:');
    expect(text).toContain('- generic [ref=f1e9000]:');
    expect(text).toContain('- listitem [ref=f1e12]:');
  });

  it('on a budget too small for one item a run, shows each long run as its note alone, and what follows still shows', () => {
    const { text, omitted } = compactSnapshot(largePage, 150, tokens);
    expect(tokens(text)).toBeLessThanOrEqual(150);
    expect(omitted).toBe(0);
    expect(text).toMatch(/- # 1500 listitem items \(find shows them by text\)/);
    expect(text).toMatch(/- # 300 row items \(find shows them by text\)/);
    expect(text).not.toContain('Buy item 1"');
    expect(text).toContain('button "Pay inside iframe" [ref=f2e4]');
    expect(text).toContain('- generic [ref=f1e9000]:');
  });

  it('never collapses a short run: a form of seven fields stays whole while the paragraphs after it collapse', () => {
    const form = [
      '- form [ref=e1]:',
      ...Array.from({ length: 7 }, (_, i) => `  - textbox "Field ${i + 1}" [ref=e${i + 2}]`),
      ...Array.from({ length: 40 }, (_, i) => `  - paragraph [ref=e${i + 20}]: Note ${i}`),
    ].join('\n');
    const { text, omitted } = compactSnapshot(form, 160, tokens);
    expect(omitted).toBe(0);
    for (let i = 1; i <= 7; i++) expect(text).toContain(`textbox "Field ${i}"`);
    expect(text).toMatch(/# 3\d more paragraph items \(find shows them by text\)/);
  });
});

describe('find', () => {
  const lines = largePage.split('\n');

  it('brings a collapsed list item whole, with the refs of its button', () => {
    const found = findInSnapshot(lines, 'buy item 1200', 8);
    expect(found).toMatchObject({ matches: 1, shown: 1 });
    // The item's line says its whole text: what an assertion on the item would expect.
    expect(found.lines).toEqual([
      '- listitem [ref=f1e2410]: "Item 1200, a product Buy item 1200"',
      '  - text: Item 1200, a product',
      '  - button "Buy item 1200" [ref=f1e2411] [cursor=pointer]',
    ]);
  });

  it('brings the row of a matching cell, so its buttons come with it', () => {
    const [head, ...cells] = row(250).map((l) => l.slice(6));
    expect(findInSnapshot(lines, 'Order 10250', 8).lines).toEqual([
      `${head!.replace(/:$/, '')}: "Order 10250 Customer 250 Edit order 10250"`,
      ...cells,
    ]);
  });

  it('caps the matches and says how many there were', () => {
    const found = findInSnapshot(lines, 'Buy item 12', 8);
    expect(found.matches).toBe(111); // 12, 120–129, 1200–1299
    expect(found.shown).toBe(8);
    expect(findInSnapshot(lines, 'Buy item 9999', 8).matches).toBe(0);
    expect(findInSnapshot(lines, '  ', 8).matches).toBe(0);
  });
});

describe("find's answer", () => {
  const lines = largePage.split('\n');

  it('says how many matched and shows fewer items when they would not fit its share of the budget', () => {
    const all = foundText(lines, 'Buy item 12');
    expect(all.split('\n')[0]).toBe('Found "Buy item 12" (first 8 of 111 matches; a longer text narrows them):');
    expect(all).toContain('button "Buy item 12" [ref=');
    const small = foundText(lines, 'Buy item 12', (text) => tokens(text) <= 100);
    expect(tokens(small)).toBeLessThanOrEqual(100);
    expect(small.split('\n')[0]).toMatch(/^Found "Buy item 12" \(first [124] of 111 matches/);
    expect(foundText(lines, 'Buy item 1200')).toMatch(
      /^Found "Buy item 1200" \(1 match\):\n- listitem \[ref=f1e2410\]: "Item 1200, a product Buy item 1200"\n/,
    );
    expect(foundText(lines, 'no such thing')).toBe('Nothing on the page contains "no such thing".');
  });
});

describe('ref aliases', () => {
  it('renumbers refs in reading order, keeps a frame prefix for iframes, and maps answers back', () => {
    const aliases = new RefAliases();
    const text = aliases.apply(
      '- main [ref=f3e2]:\n  - button "A" [ref=f3e3020]\n  - iframe [ref=f3e3021]:\n    - button "B" [ref=f4e7]\n  - button "A again" [ref=f3e3020]',
    );
    expect(text).toBe(
      '- main [ref=e1]:\n  - button "A" [ref=e2]\n  - iframe [ref=e3]:\n    - button "B" [ref=f1e1]\n  - button "A again" [ref=e2]',
    );
    expect(aliases.apply('- button "C" [ref=f3e9]')).toBe('- button "C" [ref=e4]');
    expect(aliases.resolve('e2')).toBe('f3e3020');
    expect(aliases.resolve('f1e1')).toBe('f4e7');
    expect(aliases.resolve('[ref=e4]')).toBe('f3e9');
  });

  it('writes the refs it showed back as aliases in an error message, and leaves any other alone', () => {
    const aliases = new RefAliases();
    aliases.apply('- button "A" [ref=f3e7]');
    expect(aliases.known('there is no element [ref=f3e7] on the page now')).toBe(
      'there is no element [ref=e1] on the page now',
    );
    expect(aliases.known('there is no element [ref=e9] in the latest snapshot')).toBe(
      'there is no element [ref=e9] in the latest snapshot',
    );
  });

  it('refuses a ref the model was not shown instead of guessing one', () => {
    const aliases = new RefAliases();
    aliases.apply('- button "A" [ref=e5]');
    expect(() => aliases.resolve('e5')).toThrow(UnknownAliasError);
    expect(() => aliases.resolve('e2')).toThrow(/no element \[ref=e2\] in the latest snapshot/);
  });
});

// A text of no more UTF-8 bytes than the budget is taken as fitting without being encoded (every token is at least a
// byte); the answer must be countTokens' own for any text and budget, multi-byte characters and emoji included.
describe('fitsTokens', () => {
  it('answers as countTokens(text) <= limit for any text and limit', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      fc.string({ unit: fc.constantFrom('a', ' ', 'é', '字', '😀', '\n', '-', '[ref=e1]'), maxLength: 80 }),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 200 }), (t, limit) => {
        expect(fitsTokens(t, limit)).toBe(countTokens(t) <= limit);
      }),
      { numRuns: 500 },
    );
  });

  it('compacts a page the same with it as with counting alone', () => {
    for (const budget of [150, 450, 4_000, 60_000]) {
      const counted = compactSnapshot(largePage, budget, tokens);
      const fitted = compactSnapshot(largePage, budget, tokens, (t, limit) =>
        fitsTokens(new RefAliases().apply(t), limit),
      );
      expect(fitted).toEqual(counted);
    }
  });
});
