// Steps that put text or a choice into a form: fill, type key by key, choose an option, press a key, upload a file.
import { z } from 'zod';
import { quote } from '../../domain/locators.js';
import { resolveLocator } from '../locators.js';
import { pageFunction } from '../page-function.js';
import { locatorForRef } from '../record/record.js';
import { MissingConfigError, StepFailedError } from './errors.js';
import { generatedFile, uploadNameFor } from './files.js';
import { defineStepKind, elementRef } from './kind.js';

/** Pause between keys: long enough for a page's keystroke handlers (an autocomplete's debounce) to see each. */
export const typeDelayMs = 50;

/** The labels and values of a select's options. */
const selectOptions = pageFunction<(el: Element) => string[]>(
  '(el) => Array.from(el.options ?? [], (o) => [o.label, o.value]).flat()',
);

export const fill = defineStepKind({
  tool: 'fill',
  description: "Replace a field's text",
  args: z.object({ ref: elementRef(), value: z.string() }),
  actions: ['fill'],
  element: 'required',
  example: { ref: 'textbox', value: 'Ada' },
  toStep: async ({ ref, value }, ctx) => ({
    action: 'fill',
    ...(await locatorForRef(ctx.page, ref)),
    value,
    description: ctx.description,
  }),
  perform: async ({ element, text, timeout }) => element().fill(text(), { timeout }),
  exportStatement: (_step, { el, value }) => `await ${el}.fill(${value});`,
});

export const select = defineStepKind({
  tool: 'select',
  description: 'Choose a select option by label',
  args: z.object({ ref: elementRef(), option: z.string() }),
  actions: ['select'],
  element: 'required',
  example: { ref: 'combobox', option: 'Blue' },
  toStep: async ({ ref, option }, ctx) => ({
    action: 'select',
    ...(await locatorForRef(ctx.page, ref)),
    value: option,
    description: ctx.description,
  }),
  perform: async ({ step, element, text, timeout }) => {
    const option = text();
    await element()
      .selectOption({ label: option }, { timeout })
      .catch(() => element().selectOption(option, { timeout }))
      .catch(async (err: unknown) => {
        // Playwright only says it timed out: say whether the option is there at all (its absence is the failure).
        const offered = await element()
          .evaluate(selectOptions)
          .catch(() => undefined);
        if (offered && !offered.includes(option))
          throw new StepFailedError(
            `the option "${option}" is not offered (${offered.slice(0, 10).join(', ') || 'no options'}) (step: ${step.description})`,
          );
        throw err;
      });
  },
  exportStatement: (_step, { el, value }) => `await ${el}.selectOption({ label: ${value} });`,
});

export const press = defineStepKind({
  tool: 'press',
  description: 'Press a key, e.g. Enter',
  args: z.object({ key: z.string(), ref: elementRef().optional() }),
  actions: ['press'],
  element: 'optional',
  example: { key: 'Enter', ref: 'textbox' },
  toStep: async ({ key, ref }, ctx) => ({
    action: 'press',
    ...(ref ? await locatorForRef(ctx.page, ref) : undefined),
    value: key,
    description: ctx.description,
  }),
  perform: async ({ page, locator, text, timeout }) => {
    if (locator) await locator.press(text(), { timeout });
    else await page.keyboard.press(text());
  },
  exportStatement: (_step, { el, value }) =>
    el ? `await ${el}.press(${value});` : `await page.keyboard.press(${value});`,
});

export const type = defineStepKind({
  tool: 'type',
  description: 'Type key by key (autocompletes)',
  args: z.object({ ref: elementRef(), text: z.string() }),
  actions: ['type'],
  element: 'required',
  example: { ref: 'textbox', text: 'Lon' },
  toStep: async ({ ref, text }, ctx) => ({
    action: 'type',
    ...(await locatorForRef(ctx.page, ref)),
    value: text,
    description: ctx.description,
  }),
  perform: async ({ element, value, timeout }) => {
    if (value === undefined) throw new Error('type needs a value');
    // Emptied first so the field holds exactly the typed text on every replay; then key by key, so handlers
    // that listen to keystrokes (and not to `fill`'s single input event) react as they do for a person.
    await element().fill('', { timeout });
    await element().pressSequentially(value, { delay: typeDelayMs, timeout });
  },
  exportStatement: (_step, { el, value }) =>
    `await ${el}.fill(''); await ${el}.pressSequentially(${value}, { delay: ${typeDelayMs} });`,
});

export const upload = defineStepKind({
  tool: 'upload',
  description: 'Upload a file named fileName, or a project file',
  args: z.object({ ref: elementRef(), fileName: z.string().optional(), projectFile: z.string().optional() }),
  actions: ['upload'],
  element: 'required',
  example: { ref: 'button', fileName: 'avatar.png' },
  toStep: async ({ ref, fileName, projectFile }, { page, description, timeoutMs }) => {
    const element = await locatorForRef(page, ref);
    // A project file is sent as uploaded (POST /v1/files), whatever its type. Otherwise what the input accepts
    // decides the file's type, once: replay and export send the recorded name's type.
    if (projectFile) return { action: 'upload', ...element, value: projectFile, projectFile: true, description };
    const accept = await resolveLocator(page, element.locator).getAttribute('accept', { timeout: timeoutMs });
    return { action: 'upload', ...element, value: uploadNameFor(accept, fileName), description };
  },
  perform: async ({ step, element, text, value, opts, timeout }) => {
    // A valid file of the recorded name's type (a PNG that decodes, a PDF a reader opens), not text in disguise.
    const file = step.projectFile ? await opts.projectFiles?.(text()) : generatedFile(value ?? 'upload.txt');
    if (!file)
      throw new MissingConfigError(
        `the step uploads the project file "${value}", which this project does not have (POST /v1/files)`,
      );
    await element().setInputFiles(file, { timeout });
  },
  exportStatement: (step, { el }) => {
    // A project file is read from PROCTOR_FILES_DIR (the files as GET /v1/files lists them), not inlined.
    if (step.projectFile)
      return `await ${el}.setInputFiles((process.env.PROCTOR_FILES_DIR ?? 'proctor-files') + '/' + ${quote(step.value ?? '')});`;
    const file = generatedFile(step.value ?? 'upload.txt');
    return `await ${el}.setInputFiles({ name: ${quote(file.name)}, mimeType: ${quote(file.mimeType)}, buffer: Buffer.from(${quote(file.buffer.toString('base64'))}, 'base64') });`;
  },
});
