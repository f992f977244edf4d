// Pull/merge request web URLs → the reference the providers' APIs take. Pure. Any host is accepted, since GitHub
// Enterprise and self-managed GitLab live on their own; which integration serves the host is the caller's choice.
import { InvalidError } from '../domain/errors.js';
import type { GitProviderId, MergeRequestRef } from '../domain/git.js';

const shapes: Record<GitProviderId, string> = {
  github: 'https://github.com/{owner}/{repo}/pull/{number}',
  gitlab: 'https://gitlab.com/{group}/{project}/-/merge_requests/{number}',
};

// GitHub owners and repository names: letters, digits, `-`, `_`, `.` (a name is never `.` or `..`).
const githubName = /^(?!\.{1,2}$)[A-Za-z0-9_.-]+$/;
// GitLab namespace and project path segments (the `-` segment separates the project from its pages).
const gitlabSegment = /^(?!-$)[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

function positiveNumber(segment: string | undefined): number | undefined {
  if (!segment || !/^[1-9][0-9]{0,9}$/.test(segment)) return undefined;
  const n = Number(segment);
  return n <= 2_147_483_647 ? n : undefined;
}

/**
 * `https://github.com/acme/shop/pull/7` (also GHE hosts, and `/files`, `/commits`… after the number) →
 * `{ provider: 'github', repository: 'acme/shop', number: 7 }`; `https://gitlab.com/acme/web/shop/-/merge_requests/3`
 * → `{ provider: 'gitlab', repository: 'acme/web/shop', number: 3 }`. Anything else is an InvalidError naming
 * the field `prUrl`.
 */
export function parseMergeRequestUrl(provider: GitProviderId, url: string): MergeRequestRef {
  const refuse = (why: string) => new InvalidError(`prUrl: ${why}; expected a URL like ${shapes[provider]}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('not a URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw refuse('not an http(s) URL');
  let segments: string[];
  try {
    segments = parsed.pathname
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
  } catch {
    throw refuse('the path is not valid percent-encoding');
  }

  if (provider === 'github') {
    const [owner, repo, pull, number] = segments;
    const n = positiveNumber(number);
    if (!owner || !repo || pull !== 'pull' || n === undefined || !githubName.test(owner) || !githubName.test(repo)) {
      throw refuse('not a GitHub pull request URL');
    }
    return { provider, repository: `${owner}/${repo}`, number: n };
  }

  const dash = segments.indexOf('-');
  const projectPath = dash === -1 ? [] : segments.slice(0, dash);
  const n = positiveNumber(segments[dash + 2]);
  if (
    projectPath.length < 2 ||
    segments[dash + 1] !== 'merge_requests' ||
    n === undefined ||
    !projectPath.every((s) => gitlabSegment.test(s))
  ) {
    throw refuse('not a GitLab merge request URL');
  }
  return { provider, repository: projectPath.join('/'), number: n };
}
