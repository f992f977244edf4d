// The two model calls of a change review: choose the tests a change affects (and goals for new ones where coverage
// is missing), then write the verdict from the results. Each is one forced tool call, so the answer is data; the
// callers validate it (ids against the catalogue, the verdict against the results).
import type OpenAI from 'openai';
import { callTool, type Llm } from './client.js';
import { mostRelevant } from '../domain/relevance.js';
import type { ReviewVerdict } from '../domain/git.js';

export interface CatalogueTest {
  id: string;
  name: string;
  goal: string | null;
  applicationShortId: string;
  applicationName: string;
}

export interface ReviewedChange {
  title: string;
  description: string;
  context: string | null;
  /** The diff cut to the token budget (src/domain/diff.ts). */
  diffText: string;
  fileCount: number;
}

export interface ProposedNewTest {
  name: string;
  goal: string;
  applicationShortId: string;
  expectedResult?: string;
  resumeFromTestCaseId?: string;
}

export interface TestSelection {
  existingTestCaseIds: string[];
  newTests: ProposedNewTest[];
  reasoning: string;
}

const selectionSystemPrompt = `You review a code change for a QA team that tests web applications end to end in a real browser.
Choose the existing tests whose user flows the change could affect (by id, from the catalogue only). Tests that earlier
reviews of this same change created are listed too: choose one that still applies rather than proposing it again.
Propose new tests only for user-visible behaviour the change adds or alters that no listed test covers; usually none,
at most five.
A new test that needs a signed-in session or a filled cart should resume from the existing test that reaches that state.
Judge behaviour only; no opinions on code quality. Answer by calling select_tests once.`;

const selectTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'select_tests',
    description: 'The tests to run for this change.',
    parameters: {
      type: 'object',
      properties: {
        existingTestCaseIds: {
          type: 'array',
          items: { type: 'string' },
          description: 'Ids of catalogue tests the change may affect',
        },
        newTests: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'Short test name, at most 80 characters' },
              goal: { type: 'string', description: 'What a user does, in plain words' },
              applicationShortId: { type: 'string' },
              expectedResult: { type: 'string' },
              resumeFromTestCaseId: {
                type: 'string',
                description: 'Catalogue test whose end state this test starts from',
              },
            },
            required: ['name', 'goal', 'applicationShortId'],
          },
        },
        reasoning: { type: 'string', description: 'One or two sentences: why these tests' },
      },
      required: ['existingTestCaseIds', 'newTests', 'reasoning'],
    },
  },
};

/** At most this many catalogue tests are shown to the model (their goals cut short; the most relevant when there are more); the rest are counted. */
const maxCatalogue = 300;

function changeMessage(change: ReviewedChange): string {
  return [
    `Change: ${change.title}`,
    change.description.trim() ? `Description:\n${change.description.trim()}` : '',
    change.context ? `Reviewer context:\n${change.context}` : '',
    `Diff (${change.fileCount} file(s)):\n${change.diffText}`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

export async function selectTests(
  llm: Llm,
  input: {
    change: ReviewedChange;
    catalogue: CatalogueTest[];
    fromEarlierReviews?: CatalogueTest[];
    applications: { shortId: string; name: string }[];
  },
): Promise<TestSelection> {
  const line = (t: CatalogueTest) =>
    `- ${t.id} | ${t.name} | ${t.applicationName} (${t.applicationShortId}) | goal: ${(t.goal ?? t.name).slice(0, 200)}`;
  // A large catalogue is cut to the tests that share the most words with the change, not to the newest.
  const change = input.change;
  const changeText = [change.title, change.description, change.context ?? '', change.diffText].join('\n');
  const shown = mostRelevant(
    input.catalogue,
    (t) => `${t.name} ${t.goal ?? ''} ${t.applicationName}`,
    changeText,
    maxCatalogue,
  ).map(line);
  const earlier = input.fromEarlierReviews ?? [];
  const catalogue = [
    `Applications: ${input.applications.map((a) => `${a.name} (${a.shortId})`).join(', ') || 'none'}`,
    `Enabled tests (${input.catalogue.length}${input.catalogue.length > maxCatalogue ? `; the ${maxCatalogue} that share the most words with the change are shown` : ''}):`,
    ...(shown.length ? shown : ['(none)']),
    ...(earlier.length
      ? [
          `Tests earlier reviews of this change created (${earlier.length}; recorded, not yet enabled for plans):`,
          ...earlier.map(line),
        ]
      : []),
  ].join('\n');
  const { name, args } = await callTool(
    llm,
    [
      { role: 'system', content: selectionSystemPrompt },
      { role: 'user', content: `${changeMessage(input.change)}\n\n${catalogue}` },
    ],
    [selectTool],
  );
  if (name !== 'select_tests')
    return { existingTestCaseIds: [], newTests: [], reasoning: 'The model did not choose tests.' };
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const newTests = (Array.isArray(args.newTests) ? args.newTests : [])
    .filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null)
    .map((t) => ({
      name: str(t.name) ?? '',
      goal: str(t.goal) ?? '',
      applicationShortId: str(t.applicationShortId) ?? '',
      expectedResult: str(t.expectedResult),
      resumeFromTestCaseId: str(t.resumeFromTestCaseId),
    }))
    .filter((t) => t.goal);
  return { existingTestCaseIds: strings(args.existingTestCaseIds), newTests, reasoning: str(args.reasoning) ?? '' };
}

export interface VerdictDraft {
  verdict: ReviewVerdict;
  summary: string;
  evaluationDetails: string;
}

const verdictSystemPrompt = `You write the verdict of an end-to-end review of a code change, from the results of the browser tests run on its preview.
Verdict: "Approved" when the tests that exercise the change passed, "Changes Requested" when a test failed because of the change
or reports a REGRESSION (a control lost its accessible name or changed its role: a user depends on it even though the test passed)
or a NEW ISSUE that is an uncaught exception or a serious or critical accessibility violation (against the base environment),
or a VISUAL CHANGE (the page looks different from its baseline: not a failed test, but a person has to look at it),
"Comment" when nothing conclusive was tested. Quarantined tests do not count. What a result lists as not covered was not tested.
Summary: two or three sentences on what was tested and what was found; name each regression and each new issue in plain words.
Evaluation details: per failing or notable test, what happened (name the failing step). No opinions on code quality.
Answer by calling write_verdict once.`;

const verdictTool: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'write_verdict',
    description: 'The review verdict.',
    parameters: {
      type: 'object',
      properties: {
        verdict: { type: 'string', enum: ['Approved', 'Changes Requested', 'Comment'] },
        summary: { type: 'string' },
        evaluationDetails: { type: 'string' },
      },
      required: ['verdict', 'summary', 'evaluationDetails'],
    },
  },
};

const verdicts: ReviewVerdict[] = ['Approved', 'Changes Requested', 'Comment'];

/** undefined when the model answered without a usable verdict (the caller then decides from the results). */
export async function writeVerdict(
  llm: Llm,
  input: { change: Omit<ReviewedChange, 'diffText'>; selectionReasoning: string; results: string },
): Promise<VerdictDraft | undefined> {
  const { name, args } = await callTool(
    llm,
    [
      { role: 'system', content: verdictSystemPrompt },
      {
        role: 'user',
        content: [
          `Change: ${input.change.title} (${input.change.fileCount} file(s))`,
          input.change.description.trim() ? `Description:\n${input.change.description.trim()}` : '',
          input.change.context ? `Reviewer context:\n${input.change.context}` : '',
          input.selectionReasoning ? `Why these tests: ${input.selectionReasoning}` : '',
          `Results:\n${input.results}`,
        ]
          .filter(Boolean)
          .join('\n\n'),
      },
    ],
    [verdictTool],
  );
  const verdict = verdicts.find((v) => v === args.verdict);
  if (name !== 'write_verdict' || !verdict) return undefined;
  return {
    verdict,
    summary: typeof args.summary === 'string' ? args.summary : '',
    evaluationDetails: typeof args.evaluationDetails === 'string' ? args.evaluationDetails : '',
  };
}
