/**
 * The dashboard's sections, grouped by what a person comes to do (issue 36): test, review, set up, and the
 * project's settings. A new area adds its entry to its group (`key` is what a page passes as `nav`). An entry's
 * path is `/${key}`; one that lives elsewhere names its `path`.
 */
const groups = [
  {
    label: 'Test',
    items: [
      { key: 'test-cases', label: 'Test cases' },
      { key: 'test-plans', label: 'Test plans' },
      { key: 'runs', label: 'Runs' },
      { key: 'compare', label: 'Compare runs' },
    ],
  },
  {
    label: 'Review',
    items: [
      { key: 'reviews', label: 'Change reviews' },
      { key: 'chats', label: 'Conversations' },
      { key: 'issues', label: 'Issues' },
    ],
  },
  {
    label: 'Set up',
    items: [
      { key: 'start', label: 'Get started' },
      { key: 'applications', label: 'Applications' },
      { key: 'configs', label: 'Configs' },
      { key: 'device-presets', label: 'Devices' },
      { key: 'scenarios', label: 'Scenarios' },
      { key: 'files', label: 'Files' },
      { key: 'inbox', label: 'Inbox' },
      { key: 'tunnels', label: 'Tunnels' },
      { key: 'git', label: 'Git' },
    ],
  },
  {
    label: 'Project',
    items: [
      { key: 'project', label: 'Settings' },
      { key: 'usage', label: 'LLM usage' },
    ],
  },
] as const satisfies readonly { label: string; items: readonly { key: string; label: string; path?: string }[] }[];

export type NavKey = (typeof groups)[number]['items'][number]['key'];

export interface NavItem {
  key: NavKey;
  label: string;
  path: string;
}

export const navGroups: readonly { label: string; items: readonly NavItem[] }[] = groups.map((g) => ({
  label: g.label,
  items: g.items.map((i: { key: NavKey; label: string; path?: string }) => ({ ...i, path: i.path ?? `/${i.key}` })),
}));

export const navItems: readonly NavItem[] = navGroups.flatMap((g) => [...g.items]);
