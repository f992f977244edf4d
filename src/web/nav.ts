/** The dashboard's sections, in menu order. A new area adds its entry here (`key` is what a page passes as `nav`). */
export const navItems = [
  { key: 'runs', label: 'Runs', path: '/runs' },
  { key: 'test-cases', label: 'Test cases', path: '/test-cases' },
] as const satisfies readonly { key: string; label: string; path: string }[];

export type NavKey = (typeof navItems)[number]['key'];
