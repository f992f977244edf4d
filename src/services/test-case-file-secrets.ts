// A test-case file never holds a secret's value: steps reference secret configs as {{NAME}}. An export writes the
// reference wherever a value slipped into a step (a step recorded or edited with the literal); an import refuses
// a file that spells one out, naming where.
import type { Step } from '../domain/steps.js';
import type { TestCaseFile } from '../schemas/test-case-file.js';
import type { FilePath } from './test-case-file-text.js';

export interface Secret {
  name: string;
  value: string;
}

// A value this short would be "found" in ordinary words; such a config is a flag, not something to leak.
const minSecretLength = 4;

const considered = (secrets: Secret[]) =>
  secrets.filter((s) => s.value.length >= minSecretLength).sort((a, b) => b.value.length - a.value.length);

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  return value;
}

/** The file with every secret value in its steps replaced by the config's reference. */
export function withoutSecrets(file: TestCaseFile, secrets: Secret[]): TestCaseFile {
  const list = considered(secrets);
  if (list.length === 0) return file;
  const redact = (text: string) => list.reduce((t, s) => t.replaceAll(s.value, `{{${s.name}}}`), text);
  return { ...file, steps: mapStrings(file.steps, redact) as Step[] };
}

/** Where the file spells out a secret's value, with the secret's name. */
export function secretsIn(file: TestCaseFile, secrets: Secret[]): { path: FilePath; name: string }[] {
  const list = considered(secrets);
  const found: { path: FilePath; name: string }[] = [];
  const walk = (value: unknown, path: FilePath) => {
    if (typeof value === 'string') {
      const secret = list.find((s) => value.includes(s.value));
      if (secret) found.push({ path, name: secret.name });
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  if (list.length > 0) walk(file, []);
  return found;
}
