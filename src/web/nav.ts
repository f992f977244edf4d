/** The dashboard's sections, in menu order. A new area adds its entry here (`key` is what a page passes as `nav`). */
export const navItems = [
  { key: 'start', label: 'Get started', path: '/start' },
  { key: 'runs', label: 'Runs', path: '/runs' },
  { key: 'compare', label: 'Compare runs', path: '/compare' },
  { key: 'test-cases', label: 'Test cases', path: '/test-cases' },
  { key: 'chats', label: 'Conversations', path: '/chats' },
  { key: 'reviews', label: 'Change reviews', path: '/reviews' },
  { key: 'issues', label: 'Issues', path: '/issues' },
  { key: 'test-plans', label: 'Test plans', path: '/test-plans' },
  { key: 'applications', label: 'Applications', path: '/applications' },
  { key: 'configs', label: 'Configs', path: '/configs' },
  { key: 'device-presets', label: 'Devices', path: '/device-presets' },
  { key: 'scenarios', label: 'Scenarios', path: '/scenarios' },
  { key: 'files', label: 'Files', path: '/files' },
  { key: 'inbox', label: 'Inbox', path: '/inbox' },
  { key: 'tunnels', label: 'Tunnels', path: '/tunnels' },
  { key: 'git', label: 'Git', path: '/git' },
  { key: 'project', label: 'Settings', path: '/project' },
] as const satisfies readonly { key: string; label: string; path: string }[];

export type NavKey = (typeof navItems)[number]['key'];
