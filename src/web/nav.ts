/**
 * The dashboard's sections, grouped by what a person comes to do (issue 36): test, review, set up, and the
 * project's settings. A new area adds its entry to its group (`key` is what a page passes as `nav`).
 */
export const navGroups = [
  {
    label: 'Test',
    items: [
      { key: 'test-cases', label: 'Test cases', path: '/test-cases' },
      { key: 'test-plans', label: 'Test plans', path: '/test-plans' },
      { key: 'runs', label: 'Runs', path: '/runs' },
      { key: 'compare', label: 'Compare runs', path: '/compare' },
    ],
  },
  {
    label: 'Review',
    items: [
      { key: 'reviews', label: 'Change reviews', path: '/reviews' },
      { key: 'chats', label: 'Conversations', path: '/chats' },
      { key: 'issues', label: 'Issues', path: '/issues' },
    ],
  },
  {
    label: 'Set up',
    items: [
      { key: 'start', label: 'Get started', path: '/start' },
      { key: 'applications', label: 'Applications', path: '/applications' },
      { key: 'configs', label: 'Configs', path: '/configs' },
      { key: 'device-presets', label: 'Devices', path: '/device-presets' },
      { key: 'scenarios', label: 'Scenarios', path: '/scenarios' },
      { key: 'files', label: 'Files', path: '/files' },
      { key: 'inbox', label: 'Inbox', path: '/inbox' },
      { key: 'tunnels', label: 'Tunnels', path: '/tunnels' },
      { key: 'git', label: 'Git', path: '/git' },
    ],
  },
  {
    label: 'Project',
    items: [{ key: 'project', label: 'Settings', path: '/project' }],
  },
] as const satisfies readonly { label: string; items: readonly { key: string; label: string; path: string }[] }[];

export type NavKey = (typeof navGroups)[number]['items'][number]['key'];

export const navItems: readonly { key: NavKey; label: string; path: string }[] = navGroups.flatMap((g) => [...g.items]);
