// RepositoryFiles over GitLab's REST API (repository tree and files, branches, merge requests).
import { call, type GitLabClient } from './gitlab.js';
import { decodeContent as decode, type RepositoryFile, type RepositoryFiles } from './repository-files.js';
import { notFoundAsUndefined } from '../domain/errors.js';

export function gitlabFiles(client: GitLabClient): RepositoryFiles {
  const { api } = client;
  const readFile = async (repository: string, path: string, ref: string) => {
    const file = await notFoundAsUndefined(() =>
      call(`${path} at ${ref} in ${repository}`, () => api.RepositoryFiles.show(repository, path, ref)),
    );
    return file ? decode(file.content) : undefined;
  };
  return {
    async branchHead(repository, branch) {
      const found = await notFoundAsUndefined(() =>
        call(`Branch ${branch} of ${repository}`, () => api.Branches.show(repository, branch)),
      );
      return found?.commit.id as string | undefined;
    },
    async readFolder(repository, folder, ref, suffix) {
      const tree = await notFoundAsUndefined(() =>
        call(`${folder} at ${ref} in ${repository}`, () =>
          api.Repositories.allRepositoryTrees(repository, { path: folder, ref, perPage: 100, maxPages: 10 }),
        ),
      );
      const files: RepositoryFile[] = [];
      for (const entry of (tree ?? []).filter((e) => e.type === 'blob' && e.name.endsWith(suffix))) {
        const text = await readFile(repository, entry.path, ref);
        if (text !== undefined) files.push({ path: entry.path, text });
      }
      return files;
    },
    readFile,
    async createBranch(repository, branch, sha) {
      await call(`Branch ${branch} of ${repository}`, () => api.Branches.create(repository, branch, sha));
    },
    async writeFile(repository, change) {
      const what = `${change.path} on ${change.branch} in ${repository}`;
      const exists = (await readFile(repository, change.path, change.branch)) !== undefined;
      await call(what, () =>
        exists
          ? api.RepositoryFiles.edit(repository, change.path, change.branch, change.text, change.message)
          : api.RepositoryFiles.create(repository, change.path, change.branch, change.text, change.message),
      );
    },
    async findOpenRequest(repository, branch, base) {
      const open = await call(`Merge requests of ${repository}`, () =>
        api.MergeRequests.all({ projectId: repository, sourceBranch: branch, targetBranch: base, state: 'opened' }),
      );
      const mr = open.find((m) => m.source_branch === branch);
      return mr ? { number: mr.iid, url: mr.web_url } : undefined;
    },
    async openRequest(repository, request) {
      const mr = await call(`A merge request in ${repository}`, () =>
        api.MergeRequests.create(repository, request.branch, request.base, request.title, {
          description: request.body,
        }),
      );
      return { number: mr.iid, url: mr.web_url };
    },
  };
}
