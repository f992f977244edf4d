import { isPageCheck, type Step } from '../../domain/steps.js';
import { quote } from '../../domain/locators.js';
import { tabActions } from '../session/session.js';

// The spec code for what a step does besides its action: which tab it acts on, the dialogs it answers, the tab it
// opens and the file it downloads. Same checks as replay, in @playwright/test terms.

/** Whether the spec needs `context` and a `pages` list (a step uses more than one tab). */
export function usesTabs(steps: Step[]): boolean {
  return steps.some(
    (s) => s.opensPage || s.page !== undefined || s.action === 'switch_tab' || s.action === 'close_tab',
  );
}

/**
 * A step on a tab other than the first that acts (not a check) may make its own tab close: a popup's "Allow" button.
 * Replay counts that as done (src/browser/session/session.ts); Playwright reports the closing as an error, or not, depending
 * on when the tab went away, so the spec tolerates it too. A check cut short by its tab closing still fails.
 */
function mayCloseItsTab(step: Step): boolean {
  return Boolean(step.locator) && (step.page ?? 0) > 0 && !isPageCheck(step.action) && !tabActions.has(step.action);
}

const magic: Record<string, string> = {
  png: '89504e470d0a1a0a',
  jpeg: 'ffd8ff',
  pdf: '255044462d',
  gif: '47494638',
  zip: '504b0304',
};

/** Helper functions the spec's steps call, declared once above the test. */
export function eventHelpers(steps: Step[]): string[] {
  const out: string[] = [];
  if (steps.some((s) => s.dialogs?.length)) {
    out.push(
      '',
      '// Answers the dialogs a step opens as recorded; any other dialog is dismissed, and the step checks what it saw.',
      "function answerDialogs(page: import('@playwright/test').Page, answers: Array<{ type: string; message: string; accept: boolean; promptText?: string }>) {",
      '  const seen: Array<{ type: string; message: string }> = [];',
      "  const onDialog = async (dialog: import('@playwright/test').Dialog) => {",
      '    const answer = answers[seen.length];',
      '    seen.push({ type: dialog.type(), message: dialog.message() });',
      "    if (seen.length >= answers.length) page.off('dialog', onDialog);",
      '    if (answer?.accept && answer.type === dialog.type() && answer.message === dialog.message()) await dialog.accept(answer.promptText);',
      "    else if (dialog.type() === 'alert') await dialog.accept();",
      '    else await dialog.dismiss();',
      '  };',
      "  page.on('dialog', onDialog);",
      '  return seen;',
      '}',
    );
  }
  if (steps.some((s) => s.download)) {
    out.push(
      '',
      "async function checkDownload(download: import('@playwright/test').Download, expected: { name: RegExp; minBytes: number; maxBytes: number; magic?: string }) {",
      '  expect(download.suggestedFilename()).toMatch(expected.name);',
      "  const bytes = (await import('node:fs')).readFileSync((await download.path())!);",
      '  expect(bytes.length).toBeGreaterThanOrEqual(expected.minBytes);',
      '  expect(bytes.length).toBeLessThanOrEqual(expected.maxBytes);',
      "  if (expected.magic) expect(bytes.subarray(0, expected.magic.length / 2).toString('hex')).toBe(expected.magic);",
      '}',
    );
  }
  if (steps.some(mayCloseItsTab)) {
    out.push(
      '',
      '// A step that makes its own tab close (a popup\'s "Allow") did its job; Playwright may report the closing as an error.',
      '// Its element must be there first: a tab that closes before it ever showed the element fails the step.',
      "async function mayCloseTab(page: import('@playwright/test').Page, element: import('@playwright/test').Locator, step: () => Promise<unknown>) {",
      "  await element.first().waitFor({ state: 'attached' });",
      '  try {',
      '    await step();',
      '  } catch (err) {',
      '    if (!page.isClosed() || !/closed/i.test(String(err))) throw err;',
      '  }',
      '}',
    );
  }
  if (steps.some((s) => s.action === 'switch_tab')) {
    out.push(
      '',
      "async function findTab(pages: import('@playwright/test').Page[], match: string) {",
      '  for (const candidate of pages) {',
      '    if (candidate.isClosed()) continue;',
      '    if (candidate.url().toLowerCase().includes(match.toLowerCase()) || (await candidate.title()).toLowerCase().includes(match.toLowerCase())) return candidate;',
      '  }',
      '  throw new Error(`no open tab has "${match}" in its URL or title`);',
      '}',
    );
  }
  return out;
}

/**
 * The step's statement with its tab, dialogs, new tab and download around it. `previous`: the step before it;
 * `element`: the step's element expression, if it has one.
 */
export function withEvents(
  step: Step,
  index: number,
  statement: string,
  previous: Step | undefined,
  element?: string,
): string[] {
  const lines: string[] = [];
  const tab = step.page ?? 0;
  const tabChanged = previous
    ? (previous.page ?? 0) !== tab ||
      previous.opensPage ||
      previous.action === 'switch_tab' ||
      previous.action === 'close_tab'
    : tab !== 0;
  if (tabChanged && step.action !== 'switch_tab') lines.push(`page = pages[${tab}]!;`);
  const n = index + 1;
  if (step.dialogs?.length) lines.push(`const dialogs${n} = answerDialogs(page, ${JSON.stringify(step.dialogs)});`);
  if (step.opensPage) lines.push(`const opened${n} = context.waitForEvent('page');`);
  if (step.download) lines.push(`const download${n} = page.waitForEvent('download');`);
  lines.push(
    mayCloseItsTab(step) && element ? `await mayCloseTab(page, ${element}, async () => { ${statement} });` : statement,
  );
  if (step.dialogs?.length) {
    const expected = step.dialogs.map((d) => ({ type: d.type, message: d.message }));
    lines.push(`await expect.poll(() => dialogs${n}).toEqual(${JSON.stringify(expected)});`);
  }
  if (step.opensPage)
    lines.push(`pages.push(await opened${n});`, `page = pages.at(-1)!;`, `await page.waitForLoadState();`);
  if (step.download) {
    const d = step.download;
    const m = magic[d.type];
    lines.push(
      `await checkDownload(await download${n}, { name: new RegExp(${quote(d.fileNamePattern)}), minBytes: ${d.minBytes}, maxBytes: ${d.maxBytes}${m ? `, magic: '${m}'` : ''} });`,
    );
  }
  return lines;
}
