import { describe, expect, it } from 'vitest';
import { compactSnapshot, foundText } from '../../src/browser/record/snapshot.js';
import { RefAliases } from '../../src/browser/record/snapshot-refs.js';
import { findInSnapshot } from '../../src/browser/record/snapshot-tree.js';
import { countTokens } from '../../src/llm/token-count.js';

// Issue 32: a page that does not fit is shown by landmarks: dialogs and alerts first, then main, then the rest;
// banner, navigation, sidebars and footers shrink to one line each before anything of main is cut. Checked over a
// matrix of layouts (sidebars of 10 to 120 links, main a short form, a long form or a 100-row table, with or
// without a dialog) and budgets from 250 to 4,000 tokens. And `find` answers with the element a test would assert.

let ref = 0;
const r = () => `[ref=e${++ref}]`;
const links = (n: number, indent: string, name: string) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${indent}- link "${name} ${i + 1}" ${r()} [cursor=pointer]:\n${indent}  - /url: /admin/${name.toLowerCase()}/${i + 1}/`,
  );

function layout(sidebarLinks: number, main: 'short form' | 'long form' | 'table', dialog: boolean): string {
  const body =
    main === 'table'
      ? [
          `    - table "Groups" ${r()}:`,
          '      - rowgroup:',
          ...Array.from(
            { length: 100 },
            (_, i) =>
              `        - row:\n          - cell "Group ${i + 1}" ${r()}\n          - cell "${i} members" ${r()}`,
          ),
        ]
      : Array.from({ length: main === 'short form' ? 4 : 60 }, (_, i) => `    - textbox "Field ${i + 1}" ${r()}`);
  return [
    `- generic ${r()}:`,
    `  - banner ${r()}:`,
    ...links(3, '    ', 'Tool'),
    `  - navigation "Breadcrumbs" ${r()}:`,
    ...links(3, '    ', 'Crumb'),
    `  - navigation "Sidebar" ${r()}:`,
    `    - searchbox "Filter navigation items" ${r()}`,
    ...links(sidebarLinks, '    ', 'Model'),
    `  - main ${r()}:`,
    `    - heading "Change group" [level=1] ${r()}`,
    ...body,
    `    - button "Save" ${r()}`,
    ...(dialog ? [`  - dialog "Unsaved changes" ${r()}:`, `    - button "Discard" ${r()}`] : []),
    `  - contentinfo ${r()}:`,
    `    - paragraph ${r()}: Site admin`,
  ].join('\n');
}

const tokens = (text: string) => countTokens(new RefAliases().apply(text));
// What compaction reads: pointer marks dropped, a bare wrapper's ref dropped.
const cleaned = (page: string) =>
  page.replace(/ \[cursor=pointer\]/g, '').replace(/^- generic \[ref=e\d+\]:$/m, '- generic:');
const cases = [10, 40, 120].flatMap((sidebar) =>
  (['short form', 'long form', 'table'] as const).flatMap((main) =>
    [false, true].flatMap((dialog) => [250, 600, 1_200, 4_000].map((budget) => ({ sidebar, main, dialog, budget }))),
  ),
);

describe('the page by landmarks', () => {
  it.each(cases)(
    'sidebar of $sidebar links, $main, dialog $dialog, $budget tokens: main is never cut before the sidebar',
    ({ sidebar, main, dialog, budget }) => {
      const page = layout(sidebar, main, dialog);
      const { text } = compactSnapshot(page, budget, tokens);
      expect(tokens(text)).toBeLessThanOrEqual(budget);
      const wholePageFits = tokens(cleaned(page)) <= budget;
      if (wholePageFits) {
        expect(text).toContain('link "Model 1"');
        return;
      }
      const lines = text.split('\n');
      const at = (pattern: string) => lines.findIndex((l) => l.includes(pattern));
      // Dialogs first, then main, then the rest.
      if (dialog) expect(at('dialog "Unsaved changes"')).toBe(0);
      expect(at('heading "Change group"')).toBeGreaterThanOrEqual(0);
      expect(at('heading "Change group"')).toBeLessThan(at('navigation "Sidebar"'));
      // Whatever main lost, the sidebar had been shrunk to one line before: it names what it holds, for find.
      const mainCut =
        !text.includes('button "Save"') ||
        /# \d+ more lines not shown/.test(lines.slice(0, at('navigation "Sidebar"')).join('\n'));
      if (mainCut || !text.includes('link "Model 1"')) {
        expect(lines[at('navigation "Sidebar"')]).toMatch(
          new RegExp(
            `navigation "Sidebar" \\[ref=e\\d+\\]: # ${sidebar} links, 1 searchbox \\(find shows them by text\\)`,
          ),
        );
        expect(text).not.toContain('link "Model 1"');
      }
      // With 1,200 tokens or more, main keeps its Save button whatever the sidebar; a table keeps its first rows.
      if (budget >= 1_200) {
        expect(text).toContain('button "Save"');
        if (main === 'table') expect(text).toContain('cell "Group 1"');
      }
    },
  );

  it('shows a page that fits whole, in document order', () => {
    const page = layout(10, 'short form', false);
    expect(compactSnapshot(page, 4_000, tokens).text).toBe(cleaned(page));
  });

  it('takes the largest region without landmarks as main when there is no main landmark', () => {
    const page = layout(120, 'long form', false).replace(/^ {2}- main (\[ref=e\d+\]):$/m, '  - generic $1:');
    const { text } = compactSnapshot(page, 900, tokens);
    expect(text.split('\n')[0]).toBe('- generic:');
    expect(text.indexOf('textbox "Field 1"')).toBeLessThan(text.indexOf('navigation "Sidebar"'));
    expect(text).toContain('navigation "Sidebar" ');
    expect(text).not.toContain('link "Model 1"');
  });
});

// Django's success message: its text split by a link to the new group.
const messages = [
  '- main [ref=e1]:',
  '  - list [ref=e2]:',
  '    - listitem [ref=e3]:',
  '      - text: The group “',
  '      - link "QA Team" [ref=e4] [cursor=pointer]:',
  '        - /url: /admin/auth/group/101/change/',
  '      - text: ” was added successfully.',
  '  - heading "Select group to change" [level=1] [ref=e5]',
  '  - paragraph [ref=e6]: 101 groups',
];

describe('find answers with elements', () => {
  const lines = messages;
  const item = [
    '- listitem [ref=e3]: "The group “QA Team” was added successfully."',
    '  - text: The group “',
    '  - link "QA Team" [ref=e4] [cursor=pointer]:',
    '    - /url: /admin/auth/group/101/change/',
    '  - text: ” was added successfully.',
  ];

  it.each([
    'was added successfully',
    'QA Team” was added',
    'the group “qa team”',
    'The  group “QA Team” was added successfully.',
  ])('"%s" answers the list item, with its ref and its whole text', (query) => {
    expect(findInSnapshot(lines, query, 8)).toEqual({ lines: item, matches: 1, shown: 1 });
  });

  it('answers the innermost element: the link for its own name, the heading, a paragraph', () => {
    expect(findInSnapshot(lines, 'QA Team', 8).lines[0]).toBe('- link "QA Team" [ref=e4] [cursor=pointer]:');
    expect(findInSnapshot(lines, 'group to change', 8).lines).toEqual([
      '- heading "Select group to change" [level=1] [ref=e5]',
    ]);
    expect(findInSnapshot(lines, '101 groups', 8).lines).toEqual(['- paragraph [ref=e6]: 101 groups']);
  });

  it('says nothing matched, and matches no text across elements that are not one element', () => {
    expect(foundText(lines, 'successfully. Select')).toBe('Nothing on the page contains "successfully. Select".');
  });
});
