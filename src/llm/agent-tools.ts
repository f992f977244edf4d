import type OpenAI from 'openai';
import { emailTools } from './agent-email.js';
import { httpRequestTool } from './http-tool.js';

type Properties = Record<string, { type: string; description: string; enum?: string[]; items?: { type: string } }>;

function tool(name: string, description: string, properties: Properties, required: string[]): OpenAI.ChatCompletionTool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } } };
}

const ref = { type: 'string', description: 'Element ref, e.g. e12' };
// Short descriptions: the tool list is sent with every step and is most of a small page's prompt.
const intent = { type: 'string', description: 'The step in plain words' };

/** The browser agent's tools: each successful call becomes one recorded step (done/fail end the session). */
export const agentTools: OpenAI.ChatCompletionTool[] = [
  tool('navigate', 'Open a URL or app path', { url: { type: 'string', description: 'URL or path' }, description: intent }, ['url', 'description']),
  tool('click', 'Click an element', { ref, description: intent }, ['ref', 'description']),
  tool('fill', 'Replace a field\'s text; {{NAME}} types a config', { ref, value: { type: 'string', description: 'Text' }, description: intent }, ['ref', 'value', 'description']),
  tool('select', 'Choose a select option', { ref, option: { type: 'string', description: 'Option label' }, description: intent }, ['ref', 'option', 'description']),
  tool('press', 'Press a key, e.g. Enter', { key: { type: 'string', description: 'Key' }, ref: { ...ref, description: 'Optional ref' }, description: intent }, ['key', 'description']),
  tool('hover', 'Hover an element', { ref, description: intent }, ['ref', 'description']),
  tool('check', 'Set a checkbox/radio/switch', { ref, checked: { type: 'boolean', description: 'Checked' }, description: intent }, ['ref', 'checked', 'description']),
  tool(
    'upload',
    'Upload a small valid file of a type the input accepts, or a project file',
    { ref, fileName: { type: 'string', description: 'File name' }, projectFile: { type: 'string', description: 'Project file name' }, description: intent },
    ['ref', 'description'],
  ),
  tool('wait_for', 'Wait for a text or element', { text: { type: 'string', description: 'Text' }, ref: { ...ref, description: 'Optional ref' }, description: intent }, ['description']),
  tool('assert_visible', 'Assert an element is visible', { ref, description: intent }, ['ref', 'description']),
  tool('assert_text', 'Assert a text is shown', { text: { type: 'string', description: 'Text' }, ref: { ...ref, description: 'Optional ref to look in' }, description: intent }, ['text', 'description']),
  tool('assert_url', 'Assert the URL contains', { contains: { type: 'string', description: 'URL part' }, description: intent }, ['contains', 'description']),
  tool('dblclick', 'Double-click an element', { ref, description: intent }, ['ref', 'description']),
  tool('drag', 'Drag an element onto another', { ref, to: { ...ref, description: 'Ref to drop on' }, description: intent }, ['ref', 'to', 'description']),
  tool('type', 'Type key by key (autocompletes)', { ref, text: { type: 'string', description: 'Text' }, description: intent }, ['ref', 'text', 'description']),
  tool(
    'scroll',
    'Scroll ref into view; with direction, scroll inside ref',
    { ref, direction: { type: 'string', description: 'Inside ref', enum: ['up', 'down', 'left', 'right'] }, untilText: { type: 'string', description: 'Until this text shows' }, description: intent },
    ['ref', 'description'],
  ),
  tool('go_back', 'Browser Back', { description: intent }, ['description']),
  tool('reload', 'Reload the page', { description: intent }, ['description']),
  tool('handle_dialog', 'Answer the next alert/confirm/prompt', { accept: { type: 'boolean', description: 'OK (true) or Cancel' }, promptText: { type: 'string', description: 'Prompt answer' } }, ['accept']),
  tool('switch_tab', 'Switch to an open tab', { tab: { type: 'string', description: 'Part of its URL or title' }, description: intent }, ['tab', 'description']),
  tool('close_tab', 'Close the current tab', { description: intent }, ['description']),
  ...emailTools,
  httpRequestTool,
  tool(
    'done',
    'Goal reached and asserted',
    {
      summary: { type: 'string', description: 'One sentence' },
      notCovered: { type: 'array', items: { type: 'string' }, description: 'Parts of the goal not verified, a few words each' },
    },
    ['summary'],
  ),
  tool('fail', 'The goal cannot be reached', { reason: { type: 'string', description: 'What blocks it' } }, ['reason']),
];

export const healTools: OpenAI.ChatCompletionTool[] = [
  tool('select_element', 'The element on the current page that is the recorded element', { ref, reason: { type: 'string', description: 'What matches the recording: role, name, text, neighbours' } }, ['ref', 'reason']),
  tool('not_found', 'No element on the page fulfills the step', { reason: { type: 'string', description: 'What is missing' } }, ['reason']),
];
