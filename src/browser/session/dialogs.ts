import type { Dialog, Page } from 'playwright-core';
import type { DialogAnswer, DialogType, StepDialog } from '../../domain/step-events.js';
import { StepFailedError } from '../steps/actions.js';

/** A dialog that did not go as recorded: the page asked something else, or nothing. */
export class DialogMismatchError extends StepFailedError {
  override name = 'DialogMismatchError';
  override readonly kind = 'assertion' as const;
}

type Mode = { kind: 'idle' } | { kind: 'replay'; expected: StepDialog[] } | { kind: 'record'; answer?: DialogAnswer };

const same = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();

/**
 * Answers every dialog of every tab itself, so none is left to Playwright's default (which dismisses all of them
 * and lets "cancel the delete" pass by accident). An alert is accepted. A confirm, prompt or beforeunload is
 * answered only as recorded (replay) or as the agent said with handle_dialog (burn-in); any other is dismissed
 * and fails the step.
 */
export class DialogWatch {
  private mode: Mode = { kind: 'idle' };
  private seen: StepDialog[] = [];
  private problem: string | undefined;

  attach(page: Page): void {
    page.on('dialog', (dialog) => void this.onDialog(dialog));
  }

  begin(mode: Mode): void {
    this.mode = mode;
    this.seen = [];
    this.problem = undefined;
  }

  /** Replay: waits (up to `waitMs`) for the recorded dialogs that open late, and throws when they did not match. */
  async finishReplay(waitMs: number): Promise<void> {
    const expected = this.mode.kind === 'replay' ? this.mode.expected : [];
    const deadline = Date.now() + waitMs;
    while (!this.problem && this.seen.length < expected.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    this.mode = { kind: 'idle' };
    if (this.problem) throw new DialogMismatchError(this.problem);
    const missing = expected[this.seen.length];
    if (missing)
      throw new DialogMismatchError(`expected a ${missing.type} dialog saying "${missing.message}", but none opened`);
  }

  /** Burn-in: the dialogs the step opened, as they were answered; throws when one needed an answer the agent had not given. */
  finishRecord(): StepDialog[] {
    this.mode = { kind: 'idle' };
    if (this.problem) throw new StepFailedError(this.problem);
    return this.seen;
  }

  private async onDialog(dialog: Dialog): Promise<void> {
    const type = dialog.type() as DialogType;
    const message = dialog.message();
    const { answer, recorded } = this.answerFor(type, message);
    if (recorded) this.seen.push({ type, message, ...answer });
    try {
      if (answer.accept) await dialog.accept(answer.promptText);
      else await dialog.dismiss();
    } catch {
      // The page closed under the dialog: nothing to answer any more.
    }
  }

  // An alert is accepted whatever the mode; it is part of the step only when the step recorded it.
  private answerFor(type: DialogType, message: string): { answer: DialogAnswer; recorded: boolean } {
    const mode = this.mode;
    const dismiss = { answer: { accept: false }, recorded: false };
    if (mode.kind === 'replay') {
      const expected = mode.expected[this.seen.length];
      if (expected && expected.type === type && same(expected.message, message)) {
        return {
          answer: {
            accept: expected.accept,
            ...(expected.promptText !== undefined && { promptText: expected.promptText }),
          },
          recorded: true,
        };
      }
      if (!expected && type === 'alert') return { answer: { accept: true }, recorded: false };
      this.problem ??= expected
        ? `expected a ${expected.type} dialog saying "${expected.message}", but a ${type} dialog said "${message}" (dismissed)`
        : `an unexpected ${type} dialog opened: "${message}" (dismissed)`;
      return dismiss;
    }
    if (type === 'alert') return { answer: { accept: true }, recorded: mode.kind === 'record' };
    if (mode.kind === 'record' && mode.answer) {
      const given = mode.answer;
      mode.answer = undefined;
      return {
        answer: {
          accept: given.accept,
          ...(given.accept && type === 'prompt' && { promptText: given.promptText ?? '' }),
        },
        recorded: true,
      };
    }
    if (mode.kind === 'record')
      this.problem ??= `a ${type} dialog opened saying "${message}" and was dismissed: call handle_dialog to answer it, then repeat this action`;
    return dismiss;
  }

  /** Burn-in: whether the agent's handle_dialog answer was left unused by the step. */
  unusedAnswer(): boolean {
    return this.mode.kind === 'record' && this.mode.answer !== undefined;
  }
}
