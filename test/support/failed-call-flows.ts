import { lastPrompt, refOf, tool, type AgentMove } from './agent-script.js';

// Issue 32, item 3: burn-ins whose agent makes a call that fails yet changes the page, then a call that succeeds
// only because of that change. Only the successful call is recorded, so the recording alone may not replay: the
// verifying replay must catch it (the agent records again) or the burn-in must fail with the reason.

export interface FailedCallFlow {
  name: string;
  path: string;
  goal: string;
  expectedResult: string;
  moves: AgentMove[];
  /** How the burn-in must end, the recorded actions when COMPLETED, and how many replays verified it. */
  outcome: { status: 'COMPLETED'; actions: string[]; attempts: number } | { status: 'FAILED'; reason: RegExp };
}

/** The re-recording's first prompt carries why the agent records again. */
const toldItFailedAt =
  (step: number, move: AgentMove): AgentMove =>
  (r) => {
    if (!lastPrompt(r).includes(`replayed in a fresh browser and failed at step ${step}:`))
      throw new Error(`scripted agent: not told the replay failed at step ${step}:\n${lastPrompt(r)}`);
    return move(r);
  };

const feed = (r: Parameters<AgentMove>[0]) => refOf(r, 'region "Activity feed"');
/** The scroll that fails (the feed has 60 entries) but leaves all 60 loaded, then a click on one it loaded. */
const shortScrollThenClick: AgentMove[] = [
  (r) =>
    tool('scroll', {
      ref: feed(r),
      direction: 'down',
      untilText: 'Entry 99',
      description: 'Scroll the feed to Entry 99',
    }),
  // The feed's long run of entries is folded in the snapshot: find shows Entry 55.
  () => tool('find', { text: 'Entry 55' }),
  (r) => tool('click', { ref: refOf(r, 'button "Entry 55"'), description: 'Open Entry 55' }),
  () => tool('assert_text', { text: 'Opened Entry 55', description: 'Entry 55 is open' }),
  () => tool('done', { summary: 'Opened' }),
];

export const failedCallFlows: FailedCallFlow[] = [
  {
    name: 'A scroll that stopped short, then caught by the replay',
    path: '/interactions/feed',
    goal: 'Open Entry 55 of the activity feed',
    expectedResult: 'Entry 55 is opened',
    moves: [
      ...shortScrollThenClick,
      // Recorded: click Entry 55, which a fresh page has not loaded. Told so, the agent scrolls to it first.
      toldItFailedAt(1, (r) =>
        tool('scroll', {
          ref: feed(r),
          direction: 'down',
          untilText: 'Entry 55',
          description: 'Scroll the feed to Entry 55',
        }),
      ),
      () => tool('find', { text: 'Entry 55' }),
      (r) => tool('click', { ref: refOf(r, 'button "Entry 55"'), description: 'Open Entry 55' }),
      () => tool('assert_text', { text: 'Opened Entry 55', description: 'Entry 55 is open' }),
      () => tool('done', { summary: 'Opened' }),
    ],
    outcome: { status: 'COMPLETED', actions: ['scroll', 'click', 'assert_text'], attempts: 2 },
  },
  {
    name: 'A scroll that stopped short, every time',
    path: '/interactions/feed',
    goal: 'Open Entry 55 of the feed, the same mistake each time',
    expectedResult: 'Entry 55 is opened',
    // The agent repeats its mistake on each re-recording: the steps never replay, and the burn-in says so.
    moves: [
      ...shortScrollThenClick,
      ...shortScrollThenClick.map((m, i) => (i === 0 ? toldItFailedAt(1, m) : m)),
      ...shortScrollThenClick.map((m, i) => (i === 0 ? toldItFailedAt(1, m) : m)),
    ],
    outcome: { status: 'FAILED', reason: /^the recorded steps do not replay: step 1 \(click\)/ },
  },
  {
    name: 'An autocomplete typed into, a select that failed, then the option clicked',
    path: '/interactions/autocomplete',
    goal: 'Choose Berlin in the city autocomplete, after a wrong tool',
    expectedResult: 'Berlin is selected',
    moves: [
      (r) => tool('type', { ref: refOf(r, 'combobox "City"'), text: 'Ber', description: 'Type Ber into City' }),
      // Not a <select>: fails, and leaves the list the recorded `type` opened as it was.
      (r) => tool('select', { ref: refOf(r, 'combobox "City"'), option: 'Berlin', description: 'Choose Berlin' }),
      (r) => tool('click', { ref: refOf(r, 'option "Berlin"'), description: 'Pick Berlin' }),
      () => tool('assert_text', { text: 'Selected city: Berlin', description: 'Berlin is selected' }),
      () => tool('done', { summary: 'Berlin chosen' }),
    ],
    outcome: { status: 'COMPLETED', actions: ['type', 'click', 'assert_text'], attempts: 1 },
  },
  {
    name: 'A click that opened a menu and failed, then a menu item clicked',
    path: '/interactions/menu',
    goal: 'Archive report.pdf from its Actions menu',
    expectedResult: 'report.pdf is archived',
    moves: [
      // The click hovers the button, the menu opens over it and takes the click: it fails, the menu stays open.
      (r) => tool('click', { ref: refOf(r, 'button "Actions"'), description: 'Open the Actions menu' }),
      (r) => tool('click', { ref: refOf(r, 'menuitem "Archive"'), description: 'Archive' }),
      () => tool('assert_text', { text: 'Archive report.pdf: done', description: 'Archived' }),
      () => tool('done', { summary: 'Archived' }),
      // Recorded: click Archive, hidden on a fresh page. Told so, the agent opens the menu from the keyboard.
      toldItFailedAt(1, (r) =>
        tool('press', { ref: refOf(r, 'button "Actions"'), key: 'ArrowDown', description: 'Open the Actions menu' }),
      ),
      (r) => tool('click', { ref: refOf(r, 'menuitem "Archive"'), description: 'Archive' }),
      () => tool('assert_text', { text: 'Archive report.pdf: done', description: 'Archived' }),
      () => tool('done', { summary: 'Archived' }),
    ],
    outcome: { status: 'COMPLETED', actions: ['press', 'click', 'assert_text'], attempts: 2 },
  },
  {
    name: 'Row 250 of a 300-row list box',
    path: '/interactions/listbox',
    goal: 'Select row 250 in the list box',
    expectedResult: 'Row 250 is selected',
    moves: [
      (r) =>
        tool('scroll', {
          ref: refOf(r, 'listbox "Rows"'),
          direction: 'down',
          untilText: 'Row 250',
          description: 'Scroll the list to Row 250',
        }),
      () => tool('find', { text: 'Row 250' }),
      (r) => tool('click', { ref: refOf(r, /option "Row 250"/), description: 'Select Row 250' }),
      () => tool('assert_text', { text: 'Selected row 250', description: 'Row 250 is selected' }),
      () => tool('done', { summary: 'Selected' }),
    ],
    outcome: { status: 'COMPLETED', actions: ['scroll', 'click', 'assert_text'], attempts: 1 },
  },
];
