// The model's part in suggested tests (issue 34): it words candidates the map chose (src/domain/suggestions.ts), a
// batch of at most 20 in one forced tool call, validated with zod. It chooses nothing: a candidate it leaves out or
// words badly, and every candidate when no model is configured, the endpoint fails or the project's LLM budget is
// spent, gets the plain-words default, whose reason says the model did not write it.
import type OpenAI from 'openai';
import { z } from 'zod';
import { LlmBudgetExceededError } from '../domain/llm-usage.js';
import { defaultWording, type SuggestionCandidate, type SuggestionWording } from '../domain/suggestions.js';
import { callTool, LlmUnavailableError, type Llm } from './client.js';

export const suggestionBatchSize = 20;

export interface WordedSuggestion extends SuggestionCandidate, SuggestionWording {
  /** `model`: the model wrote name, goal, expected result and reason; `defaults`: the map's plain words did. */
  writtenBy: 'model' | 'defaults';
}

export interface SuggestionContext {
  applicationName: string;
  /** What the discovery was asked to look at ("the checkout"), if anything. */
  intent?: string | null;
}

export interface WordingResult {
  suggestions: WordedSuggestion[];
  /** Model calls made (one per batch asked). */
  calls: number;
  /** Why some or all were worded without the model, when they were. */
  fallback?: string;
}

const worded = z.object({
  id: z.string(),
  name: z.string().trim().min(3).max(80),
  goal: z.string().trim().min(10).max(1_000),
  expectedResult: z.string().trim().min(3).max(500),
  reason: z.string().trim().min(3).max(300),
});
const answer = z.object({ suggestions: z.array(z.unknown()).max(suggestionBatchSize * 2) });

const tool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'write_suggestions',
    description: 'The wording of each suggested test, by its id.',
    parameters: (({ $schema: _schema, ...schema }) => schema)(
      z.toJSONSchema(z.object({ suggestions: z.array(worded) }), { io: 'input' }) as Record<string, unknown>,
    ),
  },
};

const systemPrompt = `You write suggested end-to-end tests for a QA team. A crawl of the application found pages and forms that no test
covers; each candidate below is one of them, with the facts the crawl found. For each candidate write:
- name: a short test name (at most 80 characters), what a user does;
- goal: what the test does, in plain words a tester (or an agent in a browser) can follow, starting on its start page;
  invent realistic values for the fields, never real personal data, and use no value the facts do not suggest;
- expectedResult: what the page must show when it worked, checkable on the page;
- reason: one sentence on why this matters to users (what breaks unnoticed without it).
Never suggest deleting data or signing out. Answer by calling write_suggestions once, one entry per candidate id.`;

function facts(id: string, c: SuggestionCandidate): string {
  const lines = [`${id}: start page ${c.startPage}${c.title ? ` ("${c.title}")` : ''}`];
  if (c.form) {
    const f = c.form;
    lines.push(
      `  form "${f.name}" (${f.search ? 'search' : f.method.toUpperCase()}${f.action ? ` to ${f.action}` : ''}), submit: ${f.submit ? `"${f.submit}"` : 'none'}`,
      ...f.fields.map(
        (field) =>
          `  - ${field.label || field.name || '(unnamed)'}: ${field.type}${field.required ? ', required' : ''}`,
      ),
    );
  } else lines.push(`  page ${c.patterns[0]}: no test visits it`);
  return lines.join('\n');
}

/** Words the candidates, best first as given; never throws for the model's sake (the map's words stand in). */
export async function wordSuggestions(
  llm: Llm | undefined,
  candidates: readonly SuggestionCandidate[],
  context: SuggestionContext,
): Promise<WordingResult> {
  const out: WordedSuggestion[] = [];
  let calls = 0;
  let stopped: string | undefined = llm ? undefined : 'no model is configured';
  let partly: string | undefined;
  for (let start = 0; start < candidates.length; start += suggestionBatchSize) {
    const batch = candidates.slice(start, start + suggestionBatchSize);
    let words = new Map<number, SuggestionWording>();
    if (!stopped && llm) {
      try {
        calls++;
        words = await askBatch(llm, batch, context);
        if (words.size < batch.length) partly = 'the model left some out or answered them out of bounds';
      } catch (err) {
        if (err instanceof LlmBudgetExceededError) stopped = "the project's daily LLM budget is spent";
        else if (err instanceof LlmUnavailableError) stopped = 'the model is unavailable';
        else throw err;
      }
    }
    batch.forEach((c, i) => {
      const mine = words.get(i);
      out.push(
        mine
          ? { ...c, ...mine, writtenBy: 'model' }
          : { ...c, ...defaultWording(c, stopped ?? 'the model left it out'), writtenBy: 'defaults' },
      );
    });
  }
  const fallback = stopped ?? partly;
  return { suggestions: out, calls, ...(fallback && { fallback }) };
}

/** One call for one batch: the wording of each candidate the model answered for, by its index in the batch. */
async function askBatch(
  llm: Llm,
  batch: readonly SuggestionCandidate[],
  context: SuggestionContext,
): Promise<Map<number, SuggestionWording>> {
  const ids = batch.map((_, i) => `c${i + 1}`);
  const user = [
    `Application: ${context.applicationName}`,
    context.intent ? `The team asked to look at: ${context.intent}` : '',
    `Candidates (${batch.length}):`,
    ...batch.map((c, i) => facts(ids[i]!, c)),
  ]
    .filter(Boolean)
    .join('\n');
  const { name, args } = await callTool(
    llm,
    [
      { role: 'system', content: systemPrompt },
      { role: 'user', content: user },
    ],
    [tool],
  );
  const words = new Map<number, SuggestionWording>();
  const parsed = answer.safeParse(args);
  if (name !== 'write_suggestions' || !parsed.success) return words;
  for (const item of parsed.data.suggestions) {
    const one = worded.safeParse(item);
    if (!one.success) continue;
    const index = ids.indexOf(one.data.id);
    if (index < 0 || words.has(index)) continue;
    const { id: _id, ...wording } = one.data;
    words.set(index, wording);
  }
  return words;
}
