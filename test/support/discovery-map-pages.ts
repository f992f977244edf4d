// Discovered pages and forms for the tests of a discovery's map, its diff and its news: pages of one origin,
// grouped under the pattern that replaces numeric path segments with `{id}`.
import type { MapSourcePage } from '../../src/domain/discovery-map.js';
import type { DiscoveredForm } from '../../src/domain/discovery.js';

export const o = 'https://shop.test';

export const patternOf = (url: string) => new URL(url).pathname.replace(/\/\d+(?=\/|$)/g, '/{id}');

export const form = (name: string, fields: string[], method: DiscoveredForm['method'] = 'post'): DiscoveredForm => ({
  key: `${name}|${method}|${fields.join(',')}`,
  name,
  method,
  action: '',
  fields: fields.map((f) => ({ label: f, name: f, type: 'text', required: false })),
  submit: name,
  search: false,
});

/** A page at `path` that answered 200, with nothing on it but what `more` adds. */
export const page = (path: string, more: Partial<MapSourcePage> = {}): MapSourcePage => ({
  url: `${o}${path}`,
  finalUrl: `${o}${path}`,
  pattern: patternOf(`${o}${path}`),
  status: 200,
  title: path,
  headings: [],
  forms: [],
  actions: [],
  links: [],
  error: null,
  ...more,
});
