// Tool calls written as text, for OpenAI-compatible servers whose model has no native tool calling (a llama.cpp
// server without its chat template's tools, an Ollama model without the tools capability, a fine-tune that writes
// Hermes-style `<tool_call>` tags): the tools go into the system prompt, and the answer's JSON is read back. Also the
// safety net of the native mode, where such servers put the call in the content instead of `tool_calls`.
import type OpenAI from 'openai';
import { renderTools } from './token-count.js';

export interface TextToolCall {
  name: string;
  args: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The balanced `{…}` objects in `text`, outermost first (strings and escapes respected). */
function jsonObjects(text: string): unknown[] {
  const found: unknown[] = [];
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          found.push(JSON.parse(text.slice(start, i + 1)));
          start = i;
        } catch {
          // not JSON: try the next brace
        }
        break;
      }
    }
  }
  return found;
}

function argsOf(value: unknown): Record<string, unknown> | undefined {
  if (isObject(value)) return value;
  if (typeof value !== 'string') return value === undefined ? {} : undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The shapes models write a call in: {name, arguments}, {tool, args}, {function: {name, arguments}}, {name, parameters}. */
function asCall(value: unknown, known: ReadonlySet<string>): TextToolCall | undefined {
  if (!isObject(value)) return undefined;
  const fn = isObject(value.function) ? value.function : value;
  const name = [fn.name, value.tool, value.tool_name, value.action].find(
    (n): n is string => typeof n === 'string' && known.has(n),
  );
  if (!name) return undefined;
  const args = argsOf(fn.arguments ?? value.arguments ?? value.args ?? value.parameters ?? value.input);
  return args && { name, args };
}

/** The first call of a known tool written in `text` (bare, in a ```json fence, or in <tool_call> tags), if any. */
export function toolCallFromText(
  text: string | null | undefined,
  tools: readonly OpenAI.ChatCompletionTool[],
): TextToolCall | undefined {
  if (!text) return undefined;
  const known = new Set(tools.flatMap((t) => (t.type === 'function' ? [t.function.name] : [])));
  for (const value of jsonObjects(text)) {
    const call =
      asCall(value, known) ??
      (isObject(value) && Array.isArray(value.tool_calls)
        ? value.tool_calls.map((c) => asCall(c, known)).find(Boolean)
        : undefined);
    if (call) return call;
  }
  return undefined;
}

/** What a model without native tools is told: the tools, and how to answer. */
export function textToolInstructions(tools: readonly OpenAI.ChatCompletionTool[], opts: { required: boolean }): string {
  return [
    renderTools(tools),
    opts.required
      ? 'Answer with exactly one tool call and nothing else, as one JSON object: {"name": "<tool name>", "arguments": {…}}.'
      : 'To call a tool, answer with one JSON object and nothing else: {"name": "<tool name>", "arguments": {…}}; otherwise answer in plain text.',
  ].join('\n\n');
}

/** Whether streamed text so far may be the start of a text tool call (held back from the reader until it is known). */
export const mayBeTextToolCall = (text: string): boolean => /^\s*(\{|```|<tool_call>)/.test(text);
