import type OpenAI from 'openai';

type Properties = Record<string, { type: string; description: string; enum?: string[] }>;

function tool(name: string, description: string, properties: Properties, required: string[]): OpenAI.ChatCompletionTool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } } };
}

const ref = { type: 'string', description: 'The element ref from the latest snapshot, e.g. "e12"' };
const intent = { type: 'string', description: 'What this step does, in plain words, e.g. "Add the coffee mug to the cart"' };

/** The browser agent's tools: each successful call becomes one recorded step (done/fail end the session). */
export const agentTools: OpenAI.ChatCompletionTool[] = [
  tool('navigate', 'Open a URL (absolute, or a path relative to the application)', { url: { type: 'string', description: 'URL or path' }, description: intent }, ['url', 'description']),
  tool('click', 'Click an element', { ref, description: intent }, ['ref', 'description']),
  tool('fill', 'Type into a text field (replaces its content). Use {{NAME}} to type a config value', { ref, value: { type: 'string', description: 'Text, or {{NAME}} for a config' }, description: intent }, ['ref', 'value', 'description']),
  tool('select', 'Choose an option of a select/combobox by its label', { ref, option: { type: 'string', description: 'The option label' }, description: intent }, ['ref', 'option', 'description']),
  tool('press', 'Press a key (e.g. Enter, Escape, ArrowDown), optionally on an element', { key: { type: 'string', description: 'Key name' }, ref: { ...ref, description: 'Optional element ref' }, description: intent }, ['key', 'description']),
  tool('hover', 'Hover an element', { ref, description: intent }, ['ref', 'description']),
  tool('check', 'Check or uncheck a checkbox, radio or switch', { ref, checked: { type: 'boolean', description: 'true to check, false to uncheck' }, description: intent }, ['ref', 'checked', 'description']),
  tool('upload', 'Upload a small generated file through a file input', { ref, fileName: { type: 'string', description: 'File name, e.g. photo.png' }, description: intent }, ['ref', 'fileName', 'description']),
  tool('wait_for', 'Wait until a text (or element) is visible', { text: { type: 'string', description: 'Visible text to wait for' }, ref: { ...ref, description: 'Optional element ref instead of text' }, description: intent }, ['description']),
  tool('assert_visible', 'Check that an element proving the expected result is visible', { ref, description: intent }, ['ref', 'description']),
  tool('assert_text', 'Check that a text is shown (in an element, or anywhere on the page)', { text: { type: 'string', description: 'Expected text' }, ref: { ...ref, description: 'Optional element ref to look in' }, description: intent }, ['text', 'description']),
  tool('assert_url', 'Check that the URL contains a fragment', { contains: { type: 'string', description: 'e.g. /checkout/done' }, description: intent }, ['contains', 'description']),
  tool('done', 'The goal is reached and the expected result has been asserted', { summary: { type: 'string', description: 'One sentence' } }, ['summary']),
  tool('fail', 'The goal cannot be reached (explain what blocks it)', { reason: { type: 'string', description: 'What blocks the goal' } }, ['reason']),
];

export const healTools: OpenAI.ChatCompletionTool[] = [
  tool('select_element', 'The element on the current page that the step should act on', { ref, reason: { type: 'string', description: 'Why this element fulfills the step' } }, ['ref', 'reason']),
  tool('not_found', 'No element on the page fulfills the step', { reason: { type: 'string', description: 'What is missing' } }, ['reason']),
];
