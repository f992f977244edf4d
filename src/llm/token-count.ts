// Prompt size in tokens without asking the server: o200k_base (the GPT-4o family's encoding) over the prompt as
// OpenAI renders it for the model, tools included. Tools are not sent as JSON: the model reads them as a TypeScript
// namespace (a comment per description, one line per parameter), so counting JSON's quotes and braces would
// overstate them by about half. The rendering follows what is documented publicly about that format; for another
// model family the count is an estimate of the same order, which is what a budget and a bench need.
import type OpenAI from 'openai';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

let encoder: Tiktoken | undefined;
const encoding = (): Tiktoken => (encoder ??= new Tiktoken(o200k));

export const countTokens = (text: string): number => encoding().encode(text).length;

/**
 * Whether `text` is at most `limit` tokens: the same answer as `countTokens(text) <= limit`. Every token is at least
 * one byte of UTF-8, so a text of no more bytes than the limit fits without being encoded; a worker that only sees
 * small pages then never builds the encoder (0.7 s of CPU: it parses the 200,000 ranks).
 */
export const fitsTokens = (text: string, limit: number): boolean =>
  Buffer.byteLength(text, 'utf8') <= limit || countTokens(text) <= limit;

interface Schema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}

function typeOf(s: Schema, indent: string): string {
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.type === 'array') return `${s.items ? typeOf(s.items, indent) : 'any'}[]`;
  if (s.type === 'object' && s.properties) return `{\n${fields(s, `${indent}  `)}${indent}}`;
  if (s.type === 'integer') return 'number';
  return Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any');
}

function fields(s: Schema, indent = ''): string {
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties ?? {})
    .map(
      ([name, p]) =>
        `${p.description ? `${indent}// ${p.description}\n` : ''}${indent}${name}${required.has(name) ? '' : '?'}: ${typeOf(p, indent)},\n`,
    )
    .join('');
}

/** The tools as the model reads them. */
export function renderTools(tools: readonly OpenAI.ChatCompletionTool[]): string {
  const fns = tools.flatMap((t) => (t.type === 'function' ? [t.function] : []));
  const body = fns
    .map(
      (f) =>
        `${f.description ? `// ${f.description}\n` : ''}type ${f.name} = (_: {\n${fields((f.parameters ?? {}) as Schema)}}) => any;\n`,
    )
    .join('\n');
  return `# Tools\n\n## functions\n\nnamespace functions {\n\n${body}\n} // namespace functions`;
}

function contentText(content: OpenAI.ChatCompletionMessageParam['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => ('text' in part ? part.text : '')).join('');
}

/** The prompt tokens of a chat completion request: every message (with ~4 tokens of framing each) and the tools. */
export function promptTokens(
  messages: readonly OpenAI.ChatCompletionMessageParam[],
  tools: readonly OpenAI.ChatCompletionTool[] = [],
): { total: number; tools: number } {
  let total = 3; // the reply's priming
  for (const m of messages) {
    total += 4 + countTokens(contentText(m.content));
    if (m.role === 'assistant')
      for (const call of m.tool_calls ?? [])
        if (call.type === 'function') total += 4 + countTokens(call.function.name + call.function.arguments);
  }
  const toolTokens = tools.length > 0 ? countTokens(renderTools(tools)) : 0;
  return { total: total + toolTokens, tools: toolTokens };
}
