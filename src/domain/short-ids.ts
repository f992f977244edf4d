// Short-id kinds and the patterns of the API spec: `<prefix>_<random>` or `<prefix>-<slug>_<random>`.
// Pure (no Node imports): workflows validate ids with these too.
export const shortIdPrefixes = {
  application: 'app',
  environment: 'env',
  devicePreset: 'preset',
  build: 'build',
  chat: 'chat',
  testPlan: 'pln',
  config: 'cfg',
  scenario: 'scenario',
  run: 'run',
  gitIntegration: 'git',
  discovery: 'disc',
} as const;

export type ShortIdKind = keyof typeof shortIdPrefixes;

export function shortIdPattern(kind: ShortIdKind): string {
  return `^${shortIdPrefixes[kind]}(-.+_.+|_.+)$`;
}

export function isShortId(kind: ShortIdKind, value: string): boolean {
  return new RegExp(shortIdPattern(kind)).test(value);
}

export const uuidPattern = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export function slugify(name: string, max = 24): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
}
