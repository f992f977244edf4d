// The fake GitHub's repository routes (git refs, contents, pull requests as Git sync uses them), in GitHub's REST
// shapes, over a FakeRepos. Mounted by fake-github.ts next to its review routes.
import { fakeRoute, type FakeReply, type FakeRequest, type FakeRoute } from './fake-http.js';
import { blobSha, type FakeRepos, type FakeRequestRecord } from './fake-repos.js';

const fail = (status: number, message: string): FakeReply => ({
  status,
  body: { message, documentation_url: 'https://docs.github.com/rest' },
});

export function githubGitRoutes<Auth>(
  repos: FakeRepos,
  canSee: (auth: Auth, req: FakeRequest) => FakeReply | undefined,
): FakeRoute<Auth>[] {
  const route = fakeRoute<Auth>;
  const repoOf = (req: FakeRequest) => `${req.params.owner}/${req.params.repo}`;
  const body = (req: FakeRequest) => (req.body ?? {}) as Record<string, unknown>;
  const pullJson = (r: FakeRequestRecord) => ({
    number: r.number,
    state: r.state === 'open' ? 'open' : 'closed',
    title: r.title,
    body: r.body,
    html_url: `https://github.example/${r.repository}/pull/${r.number}`,
    head: { ref: r.head, sha: repos.head(r.repository, r.head), label: `${r.repository.split('/')[0]}:${r.head}` },
    base: { ref: r.base },
    merged: r.state === 'merged',
  });
  const entryJson = (repository: string, ref: string, path: string, type: 'file' | 'dir') => {
    const text = type === 'file' ? repos.file(repository, ref, path)! : undefined;
    return { type, name: path.split('/').pop(), path, sha: text === undefined ? blobSha(path) : blobSha(text) };
  };
  return [
    route('git.getRef', 'GET', '/repos/:owner/:repo/git/ref/:ref', (req, auth) => {
      const refused = canSee(auth, req);
      if (refused) return refused;
      const branch = req.params.ref!.replace(/^heads\//, '');
      const sha = repos.head(repoOf(req), branch);
      if (!sha) return fail(404, 'Not Found');
      return { status: 200, body: { ref: `refs/heads/${branch}`, object: { sha, type: 'commit' } } };
    }),
    route('git.createRef', 'POST', '/repos/:owner/:repo/git/refs', (req, auth) => {
      const refused = canSee(auth, req);
      if (refused) return refused;
      const { ref, sha } = body(req) as { ref?: string; sha?: string };
      if (!ref?.startsWith('refs/heads/') || !sha) return fail(422, 'Invalid request');
      if (!repos.createBranch(repoOf(req), ref.slice('refs/heads/'.length), sha))
        return fail(422, 'Reference already exists');
      return { status: 201, body: { ref, object: { sha, type: 'commit' } } };
    }),
    route('repos.getContent', 'GET', '/repos/:owner/:repo/contents/:path', (req, auth) => {
      const refused = canSee(auth, req);
      if (refused) return refused;
      const repository = repoOf(req);
      const ref = req.query.get('ref') ?? 'main';
      const path = req.params.path!;
      const text = repos.file(repository, ref, path);
      if (text !== undefined)
        return {
          status: 200,
          body: {
            ...entryJson(repository, ref, path, 'file'),
            size: Buffer.byteLength(text),
            encoding: 'base64',
            content: Buffer.from(text).toString('base64').replace(/.{60}/g, '$&\n'),
          },
        };
      const entries = repos.list(repository, ref, path);
      if (entries.length === 0) return fail(404, 'Not Found');
      return { status: 200, body: entries.map((e) => entryJson(repository, ref, e.path, e.type)) };
    }),
    route('repos.createOrUpdateFileContents', 'PUT', '/repos/:owner/:repo/contents/:path', (req, auth) => {
      const refused = canSee(auth, req);
      if (refused) return refused;
      const repository = repoOf(req);
      const { message, content, branch, sha } = body(req) as Record<string, string | undefined>;
      if (!message || content === undefined || !branch) return fail(422, 'Invalid request');
      // GitHub never writes a protected default branch for an app without the bypass; Proctor must not try.
      if (!repos.head(repository, branch)) return fail(404, `Branch ${branch} not found`);
      const existing = repos.file(repository, branch, req.params.path!);
      if (existing !== undefined && sha !== blobSha(existing))
        return fail(409, `${req.params.path} does not match ${sha ?? 'no sha'}`);
      if (existing === undefined && sha) return fail(422, 'Invalid request: sha was supplied for a new file');
      const text = Buffer.from(content, 'base64').toString('utf8');
      const commit = repos.commit(repository, branch, { [req.params.path!]: text }, message);
      return {
        status: existing === undefined ? 201 : 200,
        body: { content: { path: req.params.path, sha: blobSha(text) }, commit: { sha: commit, message } },
      };
    }),
    route('pulls.list', 'GET', '/repos/:owner/:repo/pulls', (req, auth) => {
      const refused = canSee(auth, req);
      if (refused) return refused;
      const state = req.query.get('state') ?? 'open';
      const head = req.query.get('head');
      const base = req.query.get('base');
      const list = repos
        .requestsOf(repoOf(req))
        .filter((r) => state === 'all' || (state === 'open') === (r.state === 'open'))
        .filter((r) => !head || `${req.params.owner}:${r.head}`.toLowerCase() === head.toLowerCase())
        .filter((r) => !base || r.base === base);
      return { status: 200, body: list.map(pullJson) };
    }),
    route('pulls.create', 'POST', '/repos/:owner/:repo/pulls', (req, auth) => {
      const refused = canSee(auth, req);
      if (refused) return refused;
      const repository = repoOf(req);
      const { head, base, title, body: text } = body(req) as Record<string, string | undefined>;
      if (!head || !base || !title) return fail(422, 'Validation Failed');
      if (!repos.head(repository, head) || !repos.head(repository, base)) return fail(422, 'Validation Failed');
      if (repos.requestsOf(repository).some((r) => r.head === head && r.base === base && r.state === 'open'))
        return fail(422, `A pull request already exists for ${req.params.owner}:${head}.`);
      return { status: 201, body: pullJson(repos.openRequest(repository, { head, base, title, body: text ?? '' })) };
    }),
  ];
}
