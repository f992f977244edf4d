// A change's files, from a raw unified git diff, and the part of them that fits a model's token budget.
// Pure functions: the workflow classifies with the file list, the selection activity sends the fitted text.
import type { ChangedFile } from './git.js';

/**
 * Splits `git diff` output into files. A file's header (`diff --git a/x b/y`, rename/new/deleted lines, the
 * `Binary files … differ` marker or a `GIT binary patch`) gives its status and whether it is binary; the hunks are
 * its patch. Text that is not a git diff (a bare `---`/`+++` diff) is read from its `+++` lines.
 */
export function parseUnifiedDiff(diff: string): ChangedFile[] {
  const files: ChangedFile[] = [];
  let current: (ChangedFile & { hunks: string[] }) | undefined;
  const close = () => {
    if (!current) return;
    const { hunks, ...file } = current;
    while (hunks.length > 0 && hunks.at(-1) === '') hunks.pop();
    files.push(file.binary || hunks.length === 0 ? file : { ...file, patch: hunks.join('\n') });
    current = undefined;
  };
  const open = (path: string) => {
    close();
    current = { path, status: 'modified', additions: 0, deletions: 0, binary: false, hunks: [] };
  };
  let inHunk = false;
  for (const line of diff.split(/\r?\n/)) {
    const git = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (git) {
      open(git[2]!);
      if (git[1] !== git[2]) Object.assign(current!, { status: 'renamed', previousPath: git[1] });
      inHunk = false;
      continue;
    }
    if (!inHunk && line.startsWith('--- ') && !current) {
      open(stripPrefix(line.slice(4)));
      continue;
    }
    if (!current) continue;
    if (line.startsWith('@@')) {
      inHunk = true;
      current.hunks.push(line);
      continue;
    }
    if (!inHunk) {
      if (line.startsWith('new file mode')) current.status = 'added';
      else if (line.startsWith('deleted file mode')) current.status = 'removed';
      else if (line.startsWith('rename from '))
        Object.assign(current, { status: 'renamed', previousPath: line.slice(12) });
      else if (line.startsWith('rename to ')) current.path = line.slice(10);
      else if (/^Binary files .* differ$/.test(line) || line === 'GIT binary patch') current.binary = true;
      else if (line.startsWith('+++ ') && line.slice(4) !== '/dev/null') current.path = stripPrefix(line.slice(4));
      else if (line.startsWith('--- ') && line.slice(4) === '/dev/null') current.status = 'added';
      else if (line.startsWith('+++ /dev/null')) current.status = 'removed';
      continue;
    }
    if (line.startsWith('diff ')) {
      inHunk = false;
      continue;
    }
    current.hunks.push(line);
    if (line.startsWith('+')) current.additions++;
    else if (line.startsWith('-')) current.deletions++;
  }
  close();
  return files;
}

const stripPrefix = (path: string) => path.replace(/^[ab]\//, '').replace(/\t.*$/, '');

/** A rough token count (about four characters a token, as OpenAI's tokenizers average on code and English). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** How much a file tells about what a user sees in a browser: UI code first, lock files and generated code last. */
export function fileRelevance(path: string, hints: string): number {
  const p = path.toLowerCase();
  let score: number;
  if (
    /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|poetry\.lock|cargo\.lock|go\.sum|gemfile\.lock)$/.test(p) ||
    /\.min\.(js|css)$|(^|\/)(dist|build|vendor|generated)\//.test(p)
  )
    score = 0;
  else if (/\.(md|mdx|rst|txt|adoc)$/.test(p) || /(^|\/)docs?\//.test(p)) score = 1;
  else if (/(^|\/)(\.github|\.gitlab|\.circleci)\/|\.ya?ml$|\.json$|\.toml$|(^|\/)\.[^/]+$/.test(p)) score = 2;
  else if (/(^|\/)(tests?|__tests__|spec|e2e)\/|\.(test|spec)\.[a-z]+$/.test(p)) score = 3;
  else if (
    /\.(tsx|jsx|vue|svelte|html?|css|scss|less|erb|hbs|astro)$/.test(p) ||
    /(^|\/)(pages|components|views|routes|app|templates)\//.test(p)
  )
    score = 6;
  else score = 5;
  // A file named in the description or the reviewer's context is what the author says matters.
  const base = p
    .split('/')
    .at(-1)!
    .replace(/\.[^.]+$/, '');
  if (base.length >= 3 && hints.toLowerCase().includes(base)) score += 3;
  return score;
}

export interface FittedDiff {
  /** The text for the model: file headers with their patches, then the files left out, by name. */
  text: string;
  /** Files whose whole patch is in `text`. */
  included: string[];
  /** The one file whose patch was cut to fill the rest of the budget, if any. */
  truncated?: string;
  /** Files named without their patch (over budget); binary files are always named only. */
  omitted: string[];
}

/**
 * Cuts a change to a token budget by file relevance: files are ordered by `fileRelevance` (UI code, then other
 * code, tests, config, docs, lock/generated files; a file the description names ranks higher), smaller patches
 * first within a rank so more files fit; each patch goes in whole while it fits, the first one that does not fit
 * is cut to the room left (when that room is worth sending), and every other file is named with its line counts
 * so the model still knows it changed. Binary files are named, never sent. Deterministic for the same input.
 */
export function fitDiffToBudget(files: ChangedFile[], opts: { budgetTokens: number; hints?: string }): FittedDiff {
  const hints = opts.hints ?? '';
  const header = (f: ChangedFile) =>
    `### ${f.path}${f.previousPath ? ` (renamed from ${f.previousPath})` : ''} [${f.status}, +${f.additions} -${f.deletions}${f.binary ? ', binary' : ''}]`;
  const ranked = files
    .map((file, index) => ({ file, index, score: fileRelevance(file.path, hints), size: file.patch?.length ?? 0 }))
    .sort((a, b) => b.score - a.score || a.size - b.size || a.index - b.index);
  let left = opts.budgetTokens;
  const parts: string[] = [];
  const included: string[] = [];
  const omitted: string[] = [];
  let truncated: string | undefined;
  for (const { file } of ranked) {
    if (file.binary || !file.patch) {
      omitted.push(file.path);
      continue;
    }
    const block = `${header(file)}\n${file.patch}`;
    const cost = estimateTokens(block) + 1;
    if (cost <= left) {
      parts.push(block);
      included.push(file.path);
      left -= cost;
    } else if (!truncated && left >= 200) {
      const room = (left - estimateTokens(header(file)) - 20) * 4;
      parts.push(`${header(file)}\n${file.patch.slice(0, room)}\n[… patch cut to fit the review's token budget]`);
      truncated = file.path;
      left = 0;
    } else {
      omitted.push(file.path);
    }
  }
  const byPath = new Map(files.map((f) => [f.path, f]));
  if (omitted.length)
    parts.push(`Also changed (not shown):\n${omitted.map((p) => `- ${header(byPath.get(p)!).slice(4)}`).join('\n')}`);
  return { text: parts.join('\n\n'), included, truncated, omitted };
}
