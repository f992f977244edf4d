// The text of a test-case file: writing it (one layout, so an export, an import and the next export are the same
// bytes) and reading it back with every problem placed at its line and column. What the file refers to (the
// application, configs, dependencies) is checked by the importer (test-case-files.ts) with `at` from here.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Document, type Node } from 'yaml';
import { InvalidError } from '../domain/errors.js';
import { TestCaseFileSchema, testCaseFileSchemaPath, type TestCaseFile } from '../schemas/test-case-file.js';
import { stepEditProblems } from './step-edits.js';

export type FilePath = readonly (string | number)[];

/** A refused file: the message starts with where (line and column) and names the field. */
export class TestCaseFileError extends InvalidError {
  override readonly name = 'TestCaseFileError';
}

/** The file's text: fields in the schema's order, steps as the Step schema orders them, long lines kept whole. */
export function writeTestCaseFile(file: TestCaseFile, schemaUrl: string): string {
  const ordered = TestCaseFileSchema.parse(file);
  const body = stringify(ordered, { lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
  return `# yaml-language-server: $schema=${schemaUrl}\n${body}`;
}

/** The schema's address for editors: the API's public address, else the path alone. */
export const schemaUrlOf = (publicUrl: string | undefined) =>
  `${(publicUrl ?? '').replace(/\/$/, '')}${testCaseFileSchemaPath}`;

export interface ReadFile {
  file: TestCaseFile;
  /** "line L, column C" of the value at a path (of the nearest part of it the file has). */
  at(path: FilePath): string;
}

const described = (path: FilePath) =>
  path.length ? path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('') : 'the file';

/** Reads a file, or throws TestCaseFileError naming the first problems with their line and column. */
export function readTestCaseFile(text: string): ReadFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true });
  const where = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const syntax = [...doc.errors, ...doc.warnings][0];
  if (syntax) throw new TestCaseFileError(`${where(syntax.pos[0])}: ${firstLine(syntax.message)}`);
  if (doc.contents === null) throw new TestCaseFileError('line 1, column 1: the file is empty');
  let value: unknown;
  try {
    // Aliases are YAML's way to repeat a part; a file of a test case has no use for many (nor for a bomb of them).
    value = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    throw new TestCaseFileError(`line 1, column 1: ${(err as Error).message}`);
  }
  const at = (path: FilePath) => where(offsetOf(doc, path));
  const problems: { path: FilePath; message: string; key?: boolean }[] = [];
  const parsed = TestCaseFileSchema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (issue.code === 'unrecognized_keys')
        for (const key of issue.keys) problems.push({ path: [...path, key], message: 'unknown field', key: true });
      else problems.push({ path, message: issue.message });
    }
  } else {
    unknownKeys(value, parsed.data, [], (path) => problems.push({ path, message: 'unknown field', key: true }));
    for (const p of stepEditProblems(parsed.data.steps)) {
      const field = p.field === 'expected' ? 'target' : p.field;
      problems.push({
        path: p.index < 0 ? ['steps'] : field === 'steps' ? ['steps', p.index] : ['steps', p.index, field],
        message: p.message,
      });
    }
  }
  if (problems.length > 0) {
    const placed = problems.map((p) => ({
      ...p,
      offset: p.key ? keyOffsetOf(doc, p.path) : offsetOf(doc, p.path),
    }));
    // A misspelt key is usually why a field is "missing": unknown fields come first, the rest in file order.
    placed.sort((a, b) => Number(!a.key) - Number(!b.key) || a.offset - b.offset);
    const shown = placed.slice(0, 5).map((p) => `${where(p.offset)}: ${described(p.path)}: ${p.message}`);
    const more = placed.length > 5 ? `; and ${placed.length - 5} more` : '';
    throw new TestCaseFileError(shown.join('; ') + more);
  }
  return { file: (parsed as { data: TestCaseFile }).data, at };
}

const firstLine = (message: string) => message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');

// Zod keeps only the keys an object lists: any key of the input that its output lacks was not part of the format
// (a misspelt `locatr` would otherwise vanish silently, and a round trip would lose it). Records keep every key.
function unknownKeys(input: unknown, output: unknown, path: FilePath, report: (path: FilePath) => void): void {
  if (Array.isArray(input) && Array.isArray(output)) {
    input.forEach((item, i) => unknownKeys(item, output[i], [...path, i], report));
  } else if (isObject(input) && isObject(output)) {
    for (const key of Object.keys(input)) {
      if (!(key in output)) report([...path, key]);
      else unknownKeys(input[key], output[key], [...path, key], report);
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node at the path, or the deepest one on the way to it (a missing field: the object that lacks it). */
function nodeAt(doc: Document, path: FilePath): Node | undefined {
  let node = doc.contents as Node | null;
  for (const part of path) {
    const next = childOf(node, part);
    if (!next) break;
    node = next;
  }
  return node ?? undefined;
}

function childOf(node: Node | null, part: string | number): Node | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
    return (pair?.value as Node | null) ?? (pair?.key as Node | undefined);
  }
  if (isSeq(node) && typeof part === 'number') return (node.items[part] as Node | null) ?? undefined;
  return undefined;
}

function offsetOf(doc: Document, path: FilePath): number {
  const node = nodeAt(doc, path);
  // A block mapping or list starts on the line after its key: the key's line is where a reader looks.
  if ((isMap(node) || isSeq(node)) && !node.flow && path.length > 0) {
    const key = pairOf(nodeAt(doc, path.slice(0, -1)), path.at(-1)!)?.key;
    if (isScalar(key) && key.range && childOf(nodeAt(doc, path.slice(0, -1)) ?? null, path.at(-1)!) === node)
      return key.range[0];
  }
  return node?.range?.[0] ?? 0;
}

const pairOf = (parent: Node | undefined, key: string | number) =>
  isMap(parent) ? parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key)) : undefined;

/** Where the key itself is written (an unknown field). */
function keyOffsetOf(doc: Document, path: FilePath): number {
  const key = pairOf(nodeAt(doc, path.slice(0, -1)), path.at(-1)!)?.key;
  return isScalar(key) && key.range ? key.range[0] : offsetOf(doc, path);
}
