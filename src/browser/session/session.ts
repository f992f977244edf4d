import type { Page } from 'playwright-core';
import type { Step } from '../../domain/steps.js';
import type { DialogAnswer } from '../../domain/step-events.js';
import { StepFailedError } from '../steps/actions.js';
import { DialogWatch } from './dialogs.js';
import { checkDownload, downloadExpectation, DownloadWatch, type DownloadedFile } from './downloads.js';
import { Tabs, watchWindowOpen } from './tabs.js';

export type { DownloadedFile } from './downloads.js';

/** Tab steps act on the session, not on an element. */
export const tabActions = new Set<Step['action']>(['switch_tab', 'close_tab']);

// A click that makes its own page close (a popup's "Allow" button) did its job; Playwright reports it as an error.
function closedUnder(page: Page, err: unknown): boolean {
  return page.isClosed() && /closed/i.test(err instanceof Error ? err.message : String(err));
}

/**
 * One browser context as a test sees it: its tabs, and the dialogs and downloads any step causes. Burn-in records
 * what a step did (`record`); replay checks that the step does it again (`replay`).
 */
export class BrowserSession {
  readonly tabs: Tabs;
  private readonly dialogs = new DialogWatch();
  private readonly downloads = new DownloadWatch();

  constructor(first: Page) {
    this.tabs = new Tabs(first, (page) => this.attach(page));
    this.attach(first);
  }

  private attach(page: Page): void {
    this.dialogs.attach(page);
    this.downloads.attach(page);
  }

  page(): Page {
    return this.tabs.current();
  }

  // Burn-in: the last recorded step and how many tabs there were after it, to catch a tab it opened late.
  private lastRecorded?: { step: Step; tabs: number };

  /**
   * Burn-in: the tab the next step acts on. A tab that opened after the last step had settled (a slow
   * target=_blank) is that step's: the step is marked as opening it, and the agent follows it.
   */
  async currentPage(): Promise<Page> {
    const last = this.lastRecorded;
    if (last && this.tabs.count > last.tabs) {
      const opened = await this.tabs.waitForNew(last.tabs, 5_000);
      last.step.opensPage = true;
      this.lastRecorded = { step: last.step, tabs: this.tabs.count };
      return this.tabs.use(opened!);
    }
    return this.tabs.current();
  }

  /** The tab a recorded step acts on. */
  pageFor(step: Step): Page {
    if (step.action === 'switch_tab') return this.page();
    return this.tabs.use(step.page ?? 0);
  }

  /** Replay: performs the step on its tab and fails it when its dialogs, new tab or download are not as recorded. */
  async replay(
    step: Step,
    timeoutMs: number,
    perform: (page: Page) => Promise<void>,
    onDownload?: (file: DownloadedFile) => Promise<void>,
  ): Promise<void> {
    // A switch may leave a tab that has closed since: it does not need the step's own tab.
    if (step.action === 'switch_tab') return this.switchTab(step.value ?? '');
    const page = this.pageFor(step);
    if (await this.closeTab(step, page)) return;
    const before = this.tabs.count;
    this.dialogs.begin({ kind: 'replay', expected: step.dialogs ?? [] });
    this.downloads.begin();
    try {
      await perform(page);
    } catch (err) {
      if (!closedUnder(page, err)) throw err;
    } finally {
      await this.dialogs.finishReplay(step.dialogs?.length ? timeoutMs : 0);
    }
    if (step.opensPage) {
      const opened = await this.tabs.waitForNew(before, timeoutMs);
      if (opened === undefined)
        throw new StepFailedError(
          `expected the step to open a new tab or popup, but none opened (${step.description})`,
        );
      this.tabs.use(opened);
    }
    if (step.download) {
      const file = await this.downloads.take(timeoutMs);
      if (!file)
        throw new StepFailedError(
          `expected the step to download a file matching ${step.download.fileNamePattern}, but nothing was downloaded`,
        );
      checkDownload(file, step.download);
      await onDownload?.(file);
    }
  }

  /**
   * Burn-in: performs the step on the current tab and returns it with what it did (the tab it acted on, the
   * dialogs it answered, the tab it opened, the file it downloaded) and notes for the agent's history.
   */
  async record(
    step: Step,
    perform: (page: Page) => Promise<void>,
    answer?: DialogAnswer,
  ): Promise<{ step: Step; notes: string[] }> {
    if (step.action === 'switch_tab') {
      await this.switchTab(step.value ?? '');
      return { step, notes: [`now on tab ${this.tabs.currentIndex()}`] };
    }
    const index = this.tabs.currentIndex();
    const page = this.tabs.use(index);
    const recorded: Step = { ...step, ...(index > 0 && { page: index }) };
    if (await this.closeTab(recorded, page)) return { step: recorded, notes: [`closed tab ${index}`] };
    const before = this.tabs.count;
    const notes: string[] = [];
    this.dialogs.begin({ kind: 'record', answer });
    this.downloads.begin();
    const windowOpen = await watchWindowOpen(page);
    try {
      await perform(page);
    } catch (err) {
      if (!closedUnder(page, err)) {
        this.dialogs.finishRecord();
        throw err;
      }
    } finally {
      await windowOpen.stop();
    }
    if (answer && this.dialogs.unusedAnswer()) notes.push('no dialog opened: the handle_dialog answer was dropped');
    const dialogs = this.dialogs.finishRecord();
    if (dialogs.length > 0) {
      recorded.dialogs = dialogs;
      notes.push(...dialogs.map((d) => `${d.accept ? 'accepted' : 'dismissed'} ${d.type} "${d.message}"`));
    }
    // The page asked for a window: wait for it, however slow, so the agent looks at it next.
    const opened =
      this.tabs.count > before || windowOpen.opened() ? await this.tabs.waitForNew(before, 10_000) : undefined;
    if (opened !== undefined) {
      this.tabs.use(opened);
      recorded.opensPage = true;
      notes.push(`opened tab ${opened}`);
    }
    const file = await this.downloads.take(0);
    if (file) {
      recorded.download = downloadExpectation(file);
      notes.push(`downloaded ${file.fileName} (${file.type}, ${file.size} bytes)`);
    }
    if (page.isClosed()) notes.push(`tab ${index} closed`);
    this.lastRecorded = { step: recorded, tabs: this.tabs.count };
    return { step: recorded, notes };
  }

  private async closeTab(step: Step, page: Page): Promise<boolean> {
    if (step.action !== 'close_tab') return false;
    await page.close({ runBeforeUnload: false });
    return true;
  }

  /** Selects the open tab with `match` in its URL or title. */
  private async switchTab(match: string): Promise<void> {
    const found = await this.tabs.find(match);
    if (found === undefined) {
      const open = this.tabs.pages.filter((p) => !p.isClosed()).map((p) => p.url());
      throw new StepFailedError(`no open tab has "${match}" in its URL or title (open: ${open.join(', ')})`);
    }
    await this.tabs.use(found).bringToFront();
  }

  dispose(): void {
    this.tabs.dispose();
  }
}
