import { describe, expect, it } from 'vitest';
import { lastPrompt, refOf, tool } from '../support/agent-script.js';
import { useFlowStack } from '../support/flow-stack.js';
import { expectBatchSpecPassed, runPlaywrightSpecs } from '../support/playwright-runner.js';

// Dialogs, tabs and popups: each fixture burned in through the API with scripted moves, replayed with no LLM
// call, exported and run under @playwright/test; each broken variant fails its replay.
describe('dialogs, tabs and popups on the real stack', () => {
  const flows = useFlowStack();
  const { burnIn, replay, exported } = flows;

  it('cancelling a guarded delete keeps the item; the recorded answer, not a default, decides', async () => {
    const steps = await burnIn(
      'cancel-delete',
      '/flows/list',
      'Start deleting Milk but cancel',
      'Milk is still on the list',
      [
        // Without an answer the confirm is dismissed and the step is not recorded: the agent is told to answer it.
        (r) => tool('click', { ref: refOf(r, 'button "Delete Milk"'), description: 'Delete Milk' }),
        (r) => {
          expect(lastPrompt(r)).toContain(
            'a confirm dialog opened saying "Delete "Milk"? This cannot be undone." and was dismissed: call handle_dialog',
          );
          return tool('handle_dialog', { accept: false });
        },
        (r) => tool('click', { ref: refOf(r, 'button "Delete Milk"'), description: 'Delete Milk, then cancel' }),
        () => tool('assert_text', { text: 'Kept Milk', description: 'The delete was cancelled' }),
        (r) => tool('assert_visible', { ref: refOf(r, 'button "Delete Milk"'), description: 'Milk is still listed' }),
        () => tool('done', { summary: 'Cancelled the delete' }),
      ],
    );
    expect(steps.map((s) => s.action)).toEqual(['click', 'assert_text', 'assert_visible']);
    expect(steps[0]!.dialogs).toEqual([
      { type: 'confirm', message: 'Delete "Milk"? This cannot be undone.', accept: false },
    ]);
    expect((await replay('cancel-delete')).status).toBe('PASSED');

    // The app deletes without asking: the recorded confirm never opens, and the run says so.
    const broken = await replay('cancel-delete', 'noConfirm');
    expect(broken.status).toBe('FAILED');
    expect(broken.failedStepIndex).toBe(0);
    expect(broken.failureKind).toBe('assertion');
    expect(broken.error).toContain(
      'expected a confirm dialog saying "Delete "Milk"? This cannot be undone.", but none opened',
    );
  }, 90_000);

  it('accepting a confirm deletes, a prompt is answered with recorded text', async () => {
    const steps = await burnIn(
      'accept-delete',
      '/flows/list',
      'Delete Bread and rename the list to Weekly shop',
      'Bread is gone and the list is called Weekly shop',
      [
        () => tool('handle_dialog', { accept: true }),
        (r) => tool('click', { ref: refOf(r, 'button "Delete Bread"'), description: 'Delete Bread' }),
        () => tool('assert_text', { text: 'Deleted Bread', description: 'Bread was deleted' }),
        () => tool('handle_dialog', { accept: true, promptText: 'Weekly shop' }),
        (r) => tool('click', { ref: refOf(r, 'button "Rename list"'), description: 'Rename the list' }),
        (r) =>
          tool('assert_visible', { ref: refOf(r, 'heading "Weekly shop"'), description: 'The list has its new name' }),
        () => tool('done', { summary: 'Deleted and renamed' }),
      ],
    );
    expect(steps[0]!.dialogs).toEqual([
      { type: 'confirm', message: 'Delete "Bread"? This cannot be undone.', accept: true },
    ]);
    expect(steps[2]!.dialogs).toEqual([
      { type: 'prompt', message: 'New name for the list', accept: true, promptText: 'Weekly shop' },
    ]);
    expect((await replay('accept-delete')).status).toBe('PASSED');
    const broken = await replay('accept-delete', 'noConfirm');
    expect(broken.status).toBe('FAILED');
    expect(broken.error).toContain('none opened');
  }, 90_000);

  it('follows a popup sign-in that posts back to its opener and closes', async () => {
    const steps = await burnIn(
      'popup-sign-in',
      '/flows/sign-in',
      'Sign in with the provider popup',
      'The page says who is signed in',
      [
        (r) =>
          tool('click', { ref: refOf(r, 'button "Sign in with Provider"'), description: 'Open the provider popup' }),
        (r) => {
          // The agent now looks at the popup and is told which tabs are open.
          expect(lastPrompt(r)).toMatch(
            /Open tabs[^\n]*\n- tab 0: "Sign in"[^\n]*\n- tab 1 \(current\): "Provider: authorize"/,
          );
          return tool('click', { ref: refOf(r, 'button "Allow"'), description: 'Allow access' });
        },
        (r) => {
          expect(lastPrompt(r)).not.toContain('Open tabs');
          return tool('assert_text', { text: 'Signed in as ada@example.com', description: 'Signed in' });
        },
        () => tool('done', { summary: 'Signed in through the popup' }),
      ],
    );
    expect(steps.map((s) => [s.action, s.page ?? 0, Boolean(s.opensPage)])).toEqual([
      ['click', 0, true],
      ['click', 1, false],
      ['assert_text', 0, false],
    ]);
    expect((await replay('popup-sign-in')).status).toBe('PASSED');
    const broken = await replay('popup-sign-in', 'noPopup');
    expect(broken.status).toBe('FAILED');
    expect(broken.failedStepIndex).toBe(0);
    expect(broken.error).toContain('expected the step to open a new tab or popup, but none opened');
  }, 90_000);

  it('switches between tabs by title and URL and closes one', async () => {
    const steps = await burnIn(
      'tabs',
      '/flows/sign-in',
      'Read the terms in a new tab, go back, then close the terms',
      'Back on the sign-in page with the terms closed',
      [
        (r) => tool('click', { ref: refOf(r, 'link "Terms of service"'), description: 'Open the terms' }),
        (r) =>
          tool('assert_visible', { ref: refOf(r, 'heading "Terms of service"'), description: 'The terms are shown' }),
        () => tool('switch_tab', { tab: 'Sign in', description: 'Back to the sign-in tab' }),
        (r) =>
          tool('assert_visible', {
            ref: refOf(r, 'button "Sign in with Provider"'),
            description: 'The sign-in page is shown',
          }),
        () => tool('switch_tab', { tab: '/flows/terms', description: 'To the terms tab' }),
        () => tool('close_tab', { description: 'Close the terms' }),
        () => tool('assert_text', { text: 'Not signed in', description: 'Back on the sign-in page' }),
        () => tool('done', { summary: 'Done with the terms' }),
      ],
    );
    expect(steps.map((s) => `${s.action}@${s.page ?? 0}`)).toEqual([
      'click@0',
      'assert_visible@1',
      'switch_tab@0',
      'assert_visible@0',
      'switch_tab@0',
      'close_tab@1',
      'assert_text@0',
    ]);
    expect((await replay('tabs')).status).toBe('PASSED');
  }, 90_000);

  it('exports specs that pass under @playwright/test', async () => {
    const names = ['cancel-delete', 'accept-delete', 'popup-sign-in', 'tabs'];
    const specs = await Promise.all(names.map(exported));
    expect(specs[0]).toContain('answerDialogs(page, [{"type":"confirm"');
    expect(specs[2]).toContain("context.waitForEvent('page')");
    expect(specs[3]).toContain("page = await findTab(pages, 'Sign in');");
    // One runner for the four specs; each is its own file with its own verdict.
    const batch = await runPlaywrightSpecs(Object.fromEntries(names.map((name, i) => [name, specs[i]!])));
    for (const name of names) expectBatchSpecPassed(batch, name);
    expect(batch.output).toMatch(/4 passed/);
    expect(batch.code).toBe(0);
  }, 120_000);
});
