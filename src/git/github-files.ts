// RepositoryFiles over GitHub's REST API (contents, git refs, pulls), through the client's `onRepo` so an App's
// installation token is minted and renewed as for reviews.
import type { GitHubClient } from './github.js';
import {
  decodeContent as decode,
  type OpenRequest,
  type RepositoryFile,
  type RepositoryFiles,
} from './repository-files.js';
import { notFoundAsUndefined } from '../domain/errors.js';

export function githubFiles(client: GitHubClient): RepositoryFiles {
  const contentAt = (repository: string, path: string, ref: string) =>
    client.onRepo(
      repository,
      `${path} at ${ref} in ${repository}`,
      async (octokit, r) => (await octokit.rest.repos.getContent({ ...r, path, ref })).data,
    );
  const fileAt = async (repository: string, path: string, ref: string) => {
    const data = await notFoundAsUndefined(() => contentAt(repository, path, ref));
    return data && !Array.isArray(data) && data.type === 'file' ? data : undefined;
  };
  return {
    async branchHead(repository, branch) {
      const ref = await notFoundAsUndefined(() =>
        client.onRepo(
          repository,
          `Branch ${branch} of ${repository}`,
          async (octokit, r) => (await octokit.rest.git.getRef({ ...r, ref: `heads/${branch}` })).data,
        ),
      );
      return ref?.object.sha;
    },
    async readFolder(repository, folder, ref, suffix) {
      const listing = await notFoundAsUndefined(() => contentAt(repository, folder, ref));
      if (!Array.isArray(listing)) return [];
      const files: RepositoryFile[] = [];
      for (const entry of listing.filter((e) => e.type === 'file' && e.name.endsWith(suffix))) {
        const file = await fileAt(repository, entry.path, ref);
        if (file && 'content' in file) files.push({ path: entry.path, text: decode(file.content) });
      }
      return files;
    },
    async readFile(repository, path, ref) {
      const file = await fileAt(repository, path, ref);
      return file && 'content' in file ? decode(file.content) : undefined;
    },
    async createBranch(repository, branch, sha) {
      await client.onRepo(repository, `Branch ${branch} of ${repository}`, (octokit, r) =>
        octokit.rest.git.createRef({ ...r, ref: `refs/heads/${branch}`, sha }),
      );
    },
    async writeFile(repository, change) {
      // Replacing a file names the blob it replaces (GitHub refuses a stale one): read it on the branch first.
      const existing = await fileAt(repository, change.path, change.branch);
      await client.onRepo(repository, `${change.path} on ${change.branch} in ${repository}`, (octokit, r) =>
        octokit.rest.repos.createOrUpdateFileContents({
          ...r,
          path: change.path,
          branch: change.branch,
          message: change.message,
          content: Buffer.from(change.text, 'utf8').toString('base64'),
          ...(existing && { sha: existing.sha }),
        }),
      );
    },
    async findOpenRequest(repository, branch, base) {
      const owner = repository.split('/')[0]!;
      const pulls = await client.onRepo(
        repository,
        `Pull requests of ${repository}`,
        async (octokit, r) =>
          (await octokit.rest.pulls.list({ ...r, state: 'open', head: `${owner}:${branch}`, base, per_page: 10 })).data,
      );
      const pull = pulls.find((p) => p.head.ref === branch);
      return pull ? ({ number: pull.number, url: pull.html_url } satisfies OpenRequest) : undefined;
    },
    async openRequest(repository, request) {
      const { data } = await client.onRepo(repository, `A pull request in ${repository}`, (octokit, r) =>
        octokit.rest.pulls.create({
          ...r,
          head: request.branch,
          base: request.base,
          title: request.title,
          body: request.body,
        }),
      );
      return { number: data.number, url: data.html_url };
    },
  };
}
