// The Git side of the fake GitHub and GitLab servers: repositories with branches and commits holding whole file
// trees (in memory), enough for Git sync's REST calls (read a folder at a commit, create a branch, commit one
// file on it, open a pull/merge request) and for a test to "merge" or push an edit to the default branch.
import { createHash, randomBytes } from 'node:crypto';

export interface FakeCommit {
  sha: string;
  parent?: string;
  message: string;
  files: Map<string, string>;
}

export interface FakeRequestRecord {
  number: number;
  repository: string;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed' | 'merged';
}

/** The blob id Git gives a text (`blob <size>\0<text>`), as both providers report it. */
export const blobSha = (text: string) =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0`)
    .update(text)
    .digest('hex');

export class FakeRepos {
  private readonly commits = new Map<string, FakeCommit>();
  private readonly branches = new Map<string, Map<string, string>>();
  readonly requests: FakeRequestRecord[] = [];
  private nextRequest = 500;
  /** repository#branch → the commit it was created at: what a merge compares the branch with. */
  private readonly forkPoints = new Map<string, string>();

  private branchesOf(repository: string): Map<string, string> {
    const key = repository.toLowerCase();
    let b = this.branches.get(key);
    if (!b) this.branches.set(key, (b = new Map()));
    return b;
  }

  /** Commits `changes` (path → text, or null to remove) on `branch`, creating the branch (and repository) if new. */
  commit(repository: string, branch: string, changes: Record<string, string | null>, message = 'edit'): string {
    const parent = this.branchesOf(repository).get(branch);
    const files = new Map(parent ? this.commits.get(parent)!.files : []);
    for (const [path, text] of Object.entries(changes)) {
      if (text === null) files.delete(path);
      else files.set(path, text);
    }
    const sha = randomBytes(20).toString('hex');
    this.commits.set(sha, { sha, parent, message, files });
    this.branchesOf(repository).set(branch, sha);
    return sha;
  }

  head(repository: string, branch: string): string | undefined {
    return this.branchesOf(repository).get(branch);
  }

  createBranch(repository: string, branch: string, sha: string): boolean {
    const branches = this.branchesOf(repository);
    if (branches.has(branch) || !this.commits.has(sha)) return false;
    branches.set(branch, sha);
    this.forkPoints.set(`${repository.toLowerCase()}#${branch}`, sha);
    return true;
  }

  /** The files at `ref` (a branch of the repository or a commit sha), or undefined when there is no such ref. */
  tree(repository: string, ref: string): Map<string, string> | undefined {
    const sha = this.branchesOf(repository).get(ref) ?? ref;
    return this.commits.get(sha)?.files;
  }

  file(repository: string, ref: string, path: string): string | undefined {
    return this.tree(repository, ref)?.get(path);
  }

  /** Entries directly in `folder` at `ref`: files and sub-folders. */
  list(repository: string, ref: string, folder: string): { name: string; path: string; type: 'file' | 'dir' }[] {
    const tree = this.tree(repository, ref);
    if (!tree) return [];
    const prefix = folder ? `${folder}/` : '';
    const seen = new Map<string, 'file' | 'dir'>();
    for (const path of tree.keys()) {
      if (!path.startsWith(prefix)) continue;
      const [name, ...rest] = path.slice(prefix.length).split('/');
      seen.set(name!, rest.length ? 'dir' : 'file');
    }
    return [...seen].map(([name, type]) => ({ name, path: `${prefix}${name}`, type }));
  }

  openRequest(repository: string, r: Omit<FakeRequestRecord, 'number' | 'state' | 'repository'>): FakeRequestRecord {
    const request: FakeRequestRecord = { ...r, repository, number: this.nextRequest++, state: 'open' };
    this.requests.push(request);
    return request;
  }

  /** The requests of a repository (pull or merge requests Proctor opened). */
  requestsOf(repository: string): FakeRequestRecord[] {
    return this.requests.filter((r) => r.repository.toLowerCase() === repository.toLowerCase());
  }

  /** Merges an open request: the base branch gets what the head branch changed since it was created. */
  merge(repository: string, number: number): string {
    const request = this.requestsOf(repository).find((r) => r.number === number && r.state === 'open');
    if (!request) throw new Error(`no open request ${number} in ${repository}`);
    const head = this.tree(repository, request.head)!;
    const fork = this.tree(repository, this.forkPoints.get(`${repository.toLowerCase()}#${request.head}`) ?? '');
    const changes: Record<string, string | null> = {};
    for (const [path, text] of head) if (fork?.get(path) !== text) changes[path] = text;
    for (const path of fork?.keys() ?? []) if (!head.has(path)) changes[path] = null;
    request.state = 'merged';
    return this.commit(repository, request.base, changes, `Merge ${request.head}`);
  }
}
