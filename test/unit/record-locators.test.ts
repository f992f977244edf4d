import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locatorForRef } from '../../src/browser/record/record.js';
import { resolveLocator } from '../../src/browser/locators.js';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import { loadPrograms } from '../../src/programs.js';

// What burn-in records for an element, in real Chromium: locators that survive a translation lead an action,
// every action keeps the structural fallbacks the page offers, and text locators carry the whole text.

const longMessage = 'Die Gruppe „QA Team“ wurde erfolgreich hinzugefügt. Sie können sie unten erneut bearbeiten.';
// Playwright's own locator for this paragraph is the prefix getByText('Andere Gruppe wurde gelöscht').
const otherMessage = 'Andere Gruppe wurde gelöscht und kann nicht wiederhergestellt werden.';

// YAML quotes a snapshot's text when it holds a colon (`- status: "Download started: …"`).
const downloadMessage = 'Download started: invoice-2026-001.pdf, 48 KB, from the billing archive';
// A list item holding a button has no name of its own: its text is the expectation.
const groupMessage = 'The group “QA Team” was added to the organisation';

const html = `<main>
  <label for="username">Benutzername</label><input id="username" name="username">
  <input aria-label="Suche" id=":r1:">
  <button data-testid="save-group">Sichern</button>
  <a id="history-link" href="#h">Änderungsverlauf dieser Gruppe mit allen früheren Fassungen anzeigen</a>
  <button>Abbrechen</button>
  <ul><li>${longMessage}</li></ul>
  <p>${otherMessage}</p>
  <p>Andere Gruppe wurde gelöscht, aber erst gestern.</p>
  <p role="status">${downloadMessage}</p>
  <p>Download started: invoice-2026-000.pdf (yesterday)</p>
  <ul><li>${groupMessage} <button>Dismiss</button></li></ul>
</main>`;

describe('recorded locators', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: loadPrograms().chromium, args: chromiumFlags });
    page = await browser.newPage();
    await page.setContent(html);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The ref the agent would pass for the snapshot line matching `pattern`. */
  async function ref(pattern: RegExp): Promise<string> {
    const snapshot = await page.ariaSnapshot({ mode: 'ai' });
    const line = snapshot.split('\n').find((l) => pattern.test(l) && l.includes('[ref='));
    const found = line && /\[ref=([^\]]+)\]/.exec(line)?.[1];
    if (!found) throw new Error(`no ${String(pattern)} in:\n${snapshot}`);
    return found;
  }

  it('leads with a test id, and keeps the role and name behind it', async () => {
    const recorded = await locatorForRef(page, await ref(/button "Sichern"/));
    expect(recorded.locator).toBe("getByTestId('save-group')");
    expect(recorded.fallbacks).toEqual(["getByRole('button', { name: 'Sichern' })"]);
    expect(recorded.target).toEqual({ role: 'button', name: 'Sichern' });
  });

  it('keeps a short label first and the name attribute and a hand-written id as fallbacks', async () => {
    const recorded = await locatorForRef(page, await ref(/textbox "Benutzername"/));
    expect(recorded.locator).toBe("getByRole('textbox', { name: 'Benutzername' })");
    expect(recorded.fallbacks).toEqual(['locator(\'input[name="username"]\')', "locator('#username')"]);
  });

  it('never uses a generated id', async () => {
    const recorded = await locatorForRef(page, await ref(/textbox "Suche"/));
    expect(recorded.locator).toBe("getByRole('textbox', { name: 'Suche' })");
    expect(recorded.fallbacks).toEqual([]);
  });

  it('puts a hand-written id ahead of long link text, which changes with every locale', async () => {
    const recorded = await locatorForRef(page, await ref(/link "Änderungsverlauf/));
    expect(recorded.locator).toBe("locator('#history-link')");
    expect(recorded.fallbacks).toEqual([
      "getByRole('link', { name: 'Änderungsverlauf dieser Gruppe mit allen früheren Fassungen anzeigen' })",
    ]);
  });

  it('records an element with nothing structural by its role and name alone', async () => {
    const recorded = await locatorForRef(page, await ref(/button "Abbrechen"/));
    expect(recorded).toEqual({
      locator: "getByRole('button', { name: 'Abbrechen' })",
      fallbacks: [],
      target: { role: 'button', name: 'Abbrechen' },
    });
  });

  it('keeps the whole text a message assertion expects, never the prefix Playwright shortens it to', async () => {
    const message = await locatorForRef(page, await ref(/listitem/), 'assert');
    expect(message.target).toEqual({ role: 'listitem', name: longMessage });
    expect(message.locator).toBe(`getByText('${longMessage}')`);
    const other = await locatorForRef(page, await ref(/paragraph.*wiederhergestellt/), 'assert');
    expect(other.locator).toBe(`getByText('${otherMessage}')`);
    // The prefix would match yesterday's message too; the whole text matches only this one.
    expect(await resolveLocator(page, "getByText('Andere Gruppe wurde gelöscht')").count()).toBe(2);
    expect(await resolveLocator(page, other.locator).count()).toBe(1);
  });

  it('keeps whole text that holds a colon (quoted in the snapshot), and the text of a list item with no name', async () => {
    const download = await locatorForRef(page, await ref(/status/), 'assert');
    expect(download.target).toEqual({ role: 'status', name: downloadMessage });
    expect(download.locator).toBe(`getByText('${downloadMessage}')`);
    const item = await locatorForRef(page, await refNear(groupMessage), 'assert');
    expect(item.target).toEqual({ role: 'listitem', text: `${groupMessage} Dismiss` });
    expect(item.locator).toBe(`getByText('${groupMessage}')`);
  });

  /** The ref of the element whose text line in the snapshot holds `text`. */
  async function refNear(text: string): Promise<string> {
    const lines = (await page.ariaSnapshot({ mode: 'ai' })).split('\n');
    const at = lines.findIndex((l) => l.includes(text));
    for (let i = at; i >= 0; i--) {
      const found = /\[ref=([^\]]+)\]/.exec(lines[i]!)?.[1];
      if (found) return found;
    }
    throw new Error(`no ${text} in the snapshot`);
  }
});
