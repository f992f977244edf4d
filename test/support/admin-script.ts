import { refOf, refOfElement, tool, type AgentMove } from './agent-script.js';

// The scripted agent's side of burning in the admin fixture (fixtures/admin.ts), shared by the e2e test and the
// prompt bench. It acts only on refs its prompt shows (refOf throws otherwise), so one request per recorded step
// plus `done` means the page view showed every element the flow needed.
//
// Repeatable by design: the admin refuses a second group of one name, as Django does, and keeps its groups, so the
// create test deletes the group it created (through the link in the success message) and a replay, or the
// burn-in's own verifying replay, starts from the same state; the search test looks for a group that is there
// from the start.

export const adminCreateGoal = 'Create a group named QA Team in the admin, check that it was added, then delete it';
export const adminCreateExpected = 'The admin says the group QA Team was added successfully, then that it was deleted';

export const adminCreateMoves = (base: string): AgentMove[] => [
  () => tool('navigate', { url: `${base}/admin/auth/group/add/`, description: 'Open the add-group form' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Name:"'), value: 'QA Team', description: 'Name the group' }),
  (r) =>
    tool('check', {
      ref: refOf(r, 'checkbox "auth | Can view group"'),
      checked: true,
      description: 'Let the group view groups',
    }),
  (r) => tool('click', { ref: refOf(r, 'button "Save"'), description: 'Save the group' }),
  (r) =>
    tool('assert_visible', {
      ref: refOfElement(r, 'listitem', 'was added successfully'),
      description: 'The group was added',
    }),
  (r) => tool('click', { ref: refOf(r, 'link "QA Team"'), description: 'Open the new group' }),
  (r) => tool('click', { ref: refOf(r, 'link "Delete"'), description: 'Delete the group' }),
  (r) => tool('click', { ref: refOf(r, 'button "Yes, I’m sure"'), description: 'Confirm the deletion' }),
  (r) =>
    tool('assert_visible', {
      ref: refOfElement(r, 'listitem', 'was deleted successfully'),
      description: 'The group was deleted',
    }),
  () => tool('done', { summary: 'QA Team created, then deleted' }),
];

export const adminSearchGoal = 'Search the admin groups for Reviewers';
export const adminSearchExpected = 'The change list shows the Reviewers group';

export const adminSearchMoves = (base: string): AgentMove[] => [
  () => tool('navigate', { url: `${base}/admin/auth/group/`, description: 'Open the groups' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Search"'), value: 'Reviewers', description: 'Type the group name' }),
  (r) => tool('click', { ref: refOf(r, 'button "Search"'), description: 'Search' }),
  (r) => tool('assert_visible', { ref: refOf(r, 'link "Reviewers"'), description: 'The Reviewers group is listed' }),
  () => tool('done', { summary: 'Reviewers found' }),
];
