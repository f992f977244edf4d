import { refOf, tool, type AgentMove } from './agent-script.js';

// The scripted agent's side of burning in the interaction fixtures (test/support/fixtures/interactions): one flow
// per page, with the variant that breaks what its new step kind does and the step where replay must then fail.

export interface InteractionFlow {
  name: string;
  /** The page the test starts on (the application's environment). */
  path: string;
  goal: string;
  expectedResult: string;
  moves: AgentMove[];
  /** The recorded step actions, in order. */
  actions: string[];
  /** A broken build of the page and the (0-based) step whose replay must fail on it. */
  broken: { variant: string; failsAt: number };
}

const item = (text: string) => new RegExp(`listitem \\[ref=[^\\]]+\\]: ${text}$`);

export const interactionFlows: InteractionFlow[] = [
  {
    name: 'Reorder tasks by drag and drop',
    path: '/interactions/sortable',
    goal: 'Drag "Ship release" to the top of the task list',
    expectedResult: 'Ship release is first',
    moves: [
      (r) =>
        tool('drag', {
          ref: refOf(r, item('Ship release')),
          to: refOf(r, item('Write tests')),
          description: 'Drag Ship release above Write tests',
        }),
      () =>
        tool('assert_text', {
          text: 'Order: Ship release, Write tests, Fix login bug',
          description: 'Ship release is first',
        }),
      () => tool('done', { summary: 'Reordered' }),
    ],
    actions: ['drag', 'assert_text'],
    broken: { variant: 'wrongDrop', failsAt: 1 },
  },
  {
    name: 'Pick a city from the autocomplete',
    path: '/interactions/autocomplete',
    goal: 'Choose Berlin in the city autocomplete',
    expectedResult: 'Berlin is selected',
    moves: [
      (r) => tool('type', { ref: refOf(r, 'combobox "City"'), text: 'Ber', description: 'Type Ber into City' }),
      (r) => tool('click', { ref: refOf(r, 'option "Berlin"'), description: 'Pick Berlin' }),
      () => tool('assert_text', { text: 'Selected city: Berlin', description: 'Berlin is selected' }),
      () => tool('done', { summary: 'Berlin chosen' }),
    ],
    actions: ['type', 'click', 'assert_text'],
    broken: { variant: 'disabled', failsAt: 0 },
  },
  {
    name: 'Edit a todo by double-click',
    path: '/interactions/todos',
    goal: 'Rename "Buy milk" to "Buy oat milk"; it survives a reload and a visit to Help',
    expectedResult: 'The todo reads Buy oat milk',
    moves: [
      (r) => tool('dblclick', { ref: refOf(r, item('Buy milk')), description: 'Double-click Buy milk to edit it' }),
      (r) =>
        tool('fill', {
          ref: refOf(r, 'textbox "Edit todo"'),
          value: 'Buy oat milk',
          description: 'Type the new title',
        }),
      (r) => tool('press', { ref: refOf(r, 'textbox "Edit todo"'), key: 'Enter', description: 'Save the edit' }),
      () => tool('assert_text', { text: 'Saved "Buy oat milk"', description: 'The edit is saved' }),
      () => tool('reload', { description: 'Reload the page' }),
      (r) =>
        tool('assert_visible', { ref: refOf(r, item('Buy oat milk')), description: 'The edit survived the reload' }),
      (r) => tool('click', { ref: refOf(r, 'link "Help"'), description: 'Open Help' }),
      (r) => tool('assert_visible', { ref: refOf(r, 'heading "Help"'), description: 'Help is shown' }),
      () => tool('go_back', { description: 'Go back to the list' }),
      (r) => tool('assert_visible', { ref: refOf(r, item('Buy oat milk')), description: 'The list shows the edit' }),
      () => tool('done', { summary: 'Renamed' }),
    ],
    actions: [
      'dblclick',
      'fill',
      'press',
      'assert_text',
      'reload',
      'assert_visible',
      'click',
      'assert_visible',
      'go_back',
      'assert_visible',
    ],
    broken: { variant: 'noPersist', failsAt: 5 },
  },
  {
    name: 'Pay in the cross-origin payment frame',
    path: '/interactions/payment',
    goal: 'Pay with the card 4242 4242 4242 4242, expiry 12/30',
    expectedResult: 'The payment is accepted',
    moves: [
      (r) =>
        tool('fill', {
          ref: refOf(r, 'textbox "Card number"'),
          value: '4242 4242 4242 4242',
          description: 'Enter the card number',
        }),
      (r) => tool('fill', { ref: refOf(r, 'textbox "Expiry"'), value: '12/30', description: 'Enter the expiry' }),
      (r) => tool('click', { ref: refOf(r, 'button "Pay 42.00 EUR"'), description: 'Pay' }),
      (r) =>
        tool('assert_visible', { ref: refOf(r, /status \[ref=f[^\]]+\]: Paid$/), description: 'The frame says Paid' }),
      () =>
        tool('assert_text', {
          text: 'Payment accepted for card ending 4242',
          description: 'The shop confirms the payment',
        }),
      () => tool('done', { summary: 'Paid' }),
    ],
    actions: ['fill', 'fill', 'click', 'assert_visible', 'assert_text'],
    broken: { variant: 'declined', failsAt: 3 },
  },
  {
    name: 'Apply a coupon in a web component',
    path: '/interactions/coupon',
    goal: 'Apply the coupon save10',
    expectedResult: 'The coupon gives 10% off',
    moves: [
      (r) => tool('fill', { ref: refOf(r, 'textbox "Coupon code"'), value: 'save10', description: 'Enter the coupon' }),
      (r) => tool('click', { ref: refOf(r, 'button "Apply coupon"'), description: 'Apply it' }),
      (r) =>
        tool('assert_visible', {
          ref: refOf(r, /status \[ref=[^\]]+\]: "?Coupon SAVE10 applied/),
          description: 'The discount is applied',
        }),
      () => tool('done', { summary: 'Applied' }),
    ],
    actions: ['fill', 'click', 'assert_visible'],
    broken: { variant: 'expired', failsAt: 2 },
  },
  {
    name: 'Open an entry far down a lazy feed',
    path: '/interactions/feed',
    goal: 'Open Entry 24 of the activity feed',
    expectedResult: 'Entry 24 is opened',
    moves: [
      (r) => tool('scroll', { ref: refOf(r, 'region "Activity feed"'), description: 'Bring the feed into view' }),
      (r) =>
        tool('scroll', {
          ref: refOf(r, 'region "Activity feed"'),
          direction: 'down',
          untilText: 'Entry 24',
          description: 'Scroll the feed to Entry 24',
        }),
      (r) => tool('click', { ref: refOf(r, 'button "Entry 24"'), description: 'Open Entry 24' }),
      () => tool('assert_text', { text: 'Opened Entry 24', description: 'Entry 24 is open' }),
      () => tool('done', { summary: 'Opened' }),
    ],
    actions: ['scroll', 'scroll', 'click', 'assert_text'],
    broken: { variant: 'short', failsAt: 1 },
  },
];
