// The boundary Git sync needs of a repository (issue 37 part 2): read a folder at a commit, write one file on a
// branch of Proctor's own, and open (or find the open) pull/merge request from that branch. Nothing here writes to
// the default branch: a change reaches it only through a request a person merges. Implemented over the same REST
// clients as reviews: github-files.ts (Octokit) and gitlab-files.ts (@gitbeaker/rest).

/** A file's content as both providers' APIs send it (base64). */
export const decodeContent = (content: string) => Buffer.from(content, 'base64').toString('utf8');

export interface RepositoryFile {
  /** The path in the repository (`tests/checkout.proctor.yaml`). */
  path: string;
  text: string;
}

export interface OpenRequest {
  number: number;
  url: string;
}

export interface RepositoryFiles {
  /** The commit at the head of `branch`, or undefined when the repository has no such branch. */
  branchHead(repository: string, branch: string): Promise<string | undefined>;
  /** The files directly in `folder` at `ref` (a commit or a branch) whose name ends with `suffix`; [] without the folder. */
  readFolder(repository: string, folder: string, ref: string, suffix: string): Promise<RepositoryFile[]>;
  /** The text of one file at `ref`, or undefined when it is not there. */
  readFile(repository: string, path: string, ref: string): Promise<string | undefined>;
  /** Creates `branch` at `sha`. */
  createBranch(repository: string, branch: string, sha: string): Promise<void>;
  /** Commits `text` at `path` on `branch`, creating or replacing the file. */
  writeFile(repository: string, change: { branch: string; path: string; text: string; message: string }): Promise<void>;
  /** The open pull/merge request from `branch` into `base`, if there is one. */
  findOpenRequest(repository: string, branch: string, base: string): Promise<OpenRequest | undefined>;
  openRequest(
    repository: string,
    request: { branch: string; base: string; title: string; body: string },
  ): Promise<OpenRequest>;
}
