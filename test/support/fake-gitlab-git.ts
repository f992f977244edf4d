// The fake GitLab's repository routes (branches, tree, files, merge requests as Git sync uses them), in GitLab's
// REST shapes, over a FakeRepos keyed by the project's path. Mounted by fake-gitlab.ts next to its review routes.
import { pagedReply, fakeRoute, type FakeReply, type FakeRequest, type FakeRoute } from './fake-http.js';
import { blobSha, type FakeRepos, type FakeRequestRecord } from './fake-repos.js';

const fail = (status: number, message: string): FakeReply => ({ status, body: { message } });

export function gitlabGitRoutes<Auth>(
  repos: FakeRepos,
  project: (req: FakeRequest, auth: Auth) => { id: number; path: string } | FakeReply,
): FakeRoute<Auth>[] {
  const route = fakeRoute<Auth>;
  const body = (req: FakeRequest) => (req.body ?? {}) as Record<string, unknown>;
  const param = (req: FakeRequest, name: string) => {
    const b = body(req)[name];
    return typeof b === 'string' ? b : (req.query.get(name) ?? undefined);
  };
  const mrJson = (p: { id: number; path: string }, r: FakeRequestRecord) => ({
    id: r.number + p.id * 1000,
    iid: r.number,
    project_id: p.id,
    title: r.title,
    description: r.body,
    state: r.state === 'open' ? 'opened' : r.state,
    source_branch: r.head,
    target_branch: r.base,
    sha: repos.head(p.path, r.head),
    web_url: `https://gitlab.example/${p.path}/-/merge_requests/${r.number}`,
  });
  const filesPath = '/projects/:project/repository/files/:path';
  const write = (create: boolean) => (req: FakeRequest, auth: Auth) => {
    const p = project(req, auth);
    if ('status' in p) return p;
    const [branch, content, message] = ['branch', 'content', 'commit_message'].map((n) => param(req, n));
    if (!branch || content === undefined || !message)
      return fail(400, '400 Bad request - branch, content, commit_message are missing');
    if (!repos.head(p.path, branch)) return fail(400, 'You can only create or edit files when you are on a branch');
    const exists = repos.file(p.path, branch, req.params.path!) !== undefined;
    if (create && exists) return fail(400, 'A file with this name already exists');
    if (!create && !exists) return fail(400, "A file with this name doesn't exist");
    repos.commit(p.path, branch, { [req.params.path!]: content }, message);
    return { status: create ? 201 : 200, body: { file_path: req.params.path, branch } };
  };
  return [
    route('branches.show', 'GET', '/projects/:project/repository/branches/:branch', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const sha = repos.head(p.path, req.params.branch!);
      if (!sha) return fail(404, '404 Branch Not Found');
      return { status: 200, body: { name: req.params.branch, commit: { id: sha, short_id: sha.slice(0, 8) } } };
    }),
    route('branches.create', 'POST', '/projects/:project/repository/branches', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const [branch, ref] = [param(req, 'branch'), param(req, 'ref')];
      if (!branch || !ref) return fail(400, '400 Bad request - branch, ref are missing');
      const sha = repos.head(p.path, ref) ?? ref;
      if (repos.head(p.path, branch)) return fail(400, 'Branch already exists');
      if (!repos.createBranch(p.path, branch, sha)) return fail(400, 'Invalid reference name');
      return { status: 201, body: { name: branch, commit: { id: sha } } };
    }),
    route('repositories.tree', 'GET', '/projects/:project/repository/tree', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const ref = req.query.get('ref') ?? 'main';
      const folder = req.query.get('path') ?? '';
      if (!repos.tree(p.path, ref)) return fail(404, '404 Tree Not Found');
      const entries = repos.list(p.path, ref, folder).map((e) => ({
        id: blobSha(e.path),
        name: e.name,
        type: e.type === 'file' ? 'blob' : 'tree',
        path: e.path,
        mode: e.type === 'file' ? '100644' : '040000',
      }));
      if (entries.length === 0 && folder) return fail(404, '404 Tree Not Found');
      return pagedReply(entries, req, `/projects/${p.id}/repository/tree`, 20);
    }),
    route('repositoryFiles.show', 'GET', filesPath, (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const ref = req.query.get('ref');
      if (!ref) return fail(400, '400 Bad request - ref is missing');
      const text = repos.file(p.path, ref, req.params.path!);
      if (text === undefined) return fail(404, '404 File Not Found');
      return {
        status: 200,
        body: {
          file_name: req.params.path!.split('/').pop(),
          file_path: req.params.path,
          size: Buffer.byteLength(text),
          encoding: 'base64',
          content: Buffer.from(text).toString('base64'),
          ref,
          blob_id: blobSha(text),
        },
      };
    }),
    route('repositoryFiles.create', 'POST', filesPath, write(true)),
    route('repositoryFiles.edit', 'PUT', filesPath, write(false)),
    route('mergeRequests.list', 'GET', '/projects/:project/merge_requests', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const state = req.query.get('state');
      const source = req.query.get('source_branch');
      const target = req.query.get('target_branch');
      const list = repos
        .requestsOf(p.path)
        .filter((r) => !state || state === 'all' || mrJson(p, r).state === state)
        .filter((r) => (!source || r.head === source) && (!target || r.base === target));
      return pagedReply(
        list.map((r) => mrJson(p, r)),
        req,
        `/projects/${p.id}/merge_requests`,
        20,
      );
    }),
    route('mergeRequests.create', 'POST', '/projects/:project/merge_requests', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const [head, base, title] = ['source_branch', 'target_branch', 'title'].map((n) => param(req, n));
      if (!head || !base || !title)
        return fail(400, '400 Bad request - source_branch, target_branch, title are missing');
      if (!repos.head(p.path, head) || !repos.head(p.path, base)) return fail(404, '404 Branch Not Found');
      if (repos.requestsOf(p.path).some((r) => r.head === head && r.base === base && r.state === 'open'))
        return fail(409, `Another open merge request already exists for this source branch`);
      const created = repos.openRequest(p.path, { head, base, title, body: param(req, 'description') ?? '' });
      return { status: 201, body: mrJson(p, created) };
    }),
  ];
}
