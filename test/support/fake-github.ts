// A local GitHub REST server for tests: the real @octokit clients talk to it over HTTP, at its root (as
// api.github.com) or under `/api/v3` (as GitHub Enterprise Server). State lives in memory.
//
// Use:
//   const gh = await startFakeGitHub();
//   const app = gh.addApp();                                   // { appId, privateKey } (PKCS#1 PEM, as GitHub hands out)
//   const installationId = gh.addInstallation(app.appId, ['acme/shop']);
//   gh.addToken('ghp_test', ['acme/shop']);                    // a PAT / fine-grained token for `auth: 'token'`
//   gh.addPullRequest('acme/shop', { number: 7, headSha: 'abc…', files: [...] });
//   … run the code under test with baseUrl gh.url (or gh.enterpriseUrl) …
//   gh.comments('acme/shop', 7), gh.reviews(…), gh.statuses('acme/shop', sha), gh.reactions(…)
//   gh.requests                                                // every request: method, path, route, body, status
//   gh.failNext('issues.createComment', 2)                     // the next 2 calls of that route answer 503
//   gh.tokenExchanges(installationId)                          // how many installation tokens were minted
//   await gh.deliverWebhook(url, { event: 'pull_request', payload, secret })  // POST as GitHub does, signed
//
// Authentication as GitHub does it: `POST /app/installations/{id}/access_tokens` and
// `GET /repos/{o}/{r}/installation` need the App's JWT (RS256, verified with the App's public key, `iss` = app
// id, at most 10 minutes long); every other route needs an unexpired installation token (`ghs_…`) or a
// registered token, sent as `Authorization: token …` or `Bearer …`; else 401. A token that does not cover the
// repository gets 404, as on GitHub.
//
// Route names for failNext: app.createInstallationAccessToken, apps.getRepoInstallation, pulls.get,
// pulls.listFiles, issues.listComments, issues.createComment, issues.updateComment, pulls.createReview,
// pulls.listReviews, repos.createCommitStatus, repos.listCommitStatusesForRef,
// reactions.createForIssueComment, reactions.createForIssue.
import { githubGitRoutes } from './fake-github-git.js';
import { FakeRepos } from './fake-repos.js';
import {
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  verify,
  type KeyObject,
} from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import {
  pagedReply,
  startFakeHttpServer,
  type FakeHttpServer,
  type FakeReply,
  type FakeRequest,
  fakeRoute,
  type FakeRoute,
} from './fake-http.js';

export interface FakePullFile {
  filename: string;
  status?: 'added' | 'modified' | 'removed' | 'renamed';
  previousFilename?: string;
  additions?: number;
  deletions?: number;
  /** Omitted for binary files, as GitHub does. */
  patch?: string;
}

export interface FakePullRequest {
  number: number;
  title: string;
  body: string | null;
  author: string;
  headSha: string;
  headRef: string;
  baseRef: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  files: FakePullFile[];
}

export interface FakeComment {
  id: number;
  repository: string;
  issueNumber: number;
  body: string;
  /** The login that posted it: `<app-slug>[bot]` for an installation token, the token's user otherwise. */
  author: string;
  updatedCount: number;
}

export interface FakeReview {
  id: number;
  repository: string;
  pullNumber: number;
  event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
  body: string;
  commitId: string;
  author: string;
}

export interface FakeStatus {
  id: number;
  repository: string;
  sha: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string | null;
  targetUrl: string | null;
  context: string;
}

export interface FakeReaction {
  repository: string;
  /** `comment` for a reaction on an issue comment, `issue` for one on the pull request itself. */
  subject: 'comment' | 'issue';
  /** The comment id or the issue number. */
  id: number;
  content: string;
  author: string;
}

/** The fake's HTTP server (its request log, failNext and close) and GitHub's state behind it. */
export interface FakeGitHub extends FakeHttpServer {
  /** `http://127.0.0.1:PORT`: the API root, as `https://api.github.com`. */
  url: string;
  /** `http://127.0.0.1:PORT/api/v3`: the same server as a GitHub Enterprise Server API base. */
  enterpriseUrl: string;
  /** A GitHub App with a fresh RSA key; `privateKey` is PKCS#1 PEM, as GitHub's "Generate a private key". */
  addApp(options?: { appId?: number; slug?: string }): { appId: number; privateKey: string; slug: string };
  /** Installs the app on these repositories (`owner/name`); returns the installation id. */
  addInstallation(appId: number, repositories: string[]): number;
  /** Uninstalls: the installation is gone and its tokens are revoked, as on GitHub. */
  removeInstallation(installationId: number): void;
  /** A personal access token (or any static token) that may use these repositories, acting as `user`. */
  addToken(token: string, repositories: string[], user?: string): void;
  /** How long minted installation tokens live (GitHub: one hour). */
  setInstallationTokenTtl(ms: number): void;
  addPullRequest(repository: string, pull: Partial<FakePullRequest> & { number: number }): FakePullRequest;
  pullRequest(repository: string, number: number): FakePullRequest | undefined;
  comments(repository: string, issueNumber: number): FakeComment[];
  /** Issues filed in the repository (`POST /repos/:owner/:repo/issues`). */
  issues(repository: string): { number: number; title: string; body: string; html_url: string }[];
  reviews(repository: string, pullNumber: number): FakeReview[];
  statuses(repository: string, sha: string): FakeStatus[];
  reactions(repository: string): FakeReaction[];
  /** Installation tokens minted so far for this installation. */
  tokenExchanges(installationId: number): number;
  /** The repositories' branches, commits and the pull requests opened through the API (fake-github-git.ts). */
  repos: FakeRepos;
  /**
   * POSTs a webhook delivery to `url` as GitHub does: `X-GitHub-Event`, `X-GitHub-Delivery` (a new UUID unless
   * given, so a redelivery can repeat one), `X-Hub-Signature-256` (HMAC-SHA256 of the exact body with `secret`).
   */
  deliverWebhook(url: string, delivery: WebhookDelivery): Promise<{ status: number; body: string; deliveryId: string }>;
}

export interface WebhookDelivery {
  /** `pull_request`, `issue_comment`, `deployment_status`… */
  event: string;
  payload: unknown;
  secret: string;
  deliveryId?: string;
}

/** A webhook delivery as GitHub sends it: the body is signed byte for byte. */
export async function deliverGitHubWebhook(
  url: string,
  delivery: WebhookDelivery,
): Promise<{ status: number; body: string; deliveryId: string }> {
  const body = JSON.stringify(delivery.payload);
  const deliveryId = delivery.deliveryId ?? randomUUID();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/fake',
      'x-github-event': delivery.event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${createHmac('sha256', delivery.secret).update(body).digest('hex')}`,
    },
    body,
  });
  return { status: res.status, body: await res.text(), deliveryId };
}

type Auth = { kind: 'app'; appId: number } | { kind: 'token'; repositories: Set<string>; login: string };

interface App {
  appId: number;
  slug: string;
  publicKey: KeyObject;
}

const fail = (status: number, message: string): FakeReply => ({
  status,
  body: { message, documentation_url: 'https://docs.github.com/rest' },
});

function base64UrlJson(part: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  const apps = new Map<number, App>();
  const installations = new Map<number, { appId: number; repositories: Set<string> }>();
  const tokens = new Map<
    string,
    { repositories: Set<string>; login: string; expiresAt?: number; installationId?: number }
  >();
  const exchanges = new Map<number, number>();
  const pulls = new Map<string, FakePullRequest>();
  const comments: FakeComment[] = [];
  const filed: { repository: string; number: number; title: string; body: string; html_url: string }[] = [];
  const reviews: FakeReview[] = [];
  const statuses: FakeStatus[] = [];
  const reactions: FakeReaction[] = [];
  let nextId = 1000;
  let tokenTtlMs = 60 * 60 * 1000;

  const repoOf = (req: FakeRequest) => `${req.params.owner}/${req.params.repo}`;
  const pullKey = (repository: string, number: number) => `${repository.toLowerCase()}#${number}`;
  const webBase = 'https://github.example';

  /** The token's access to the request's repository, or the 404 GitHub answers for a repository it cannot see. */
  const canSee = (auth: Auth, req: FakeRequest): FakeReply | undefined =>
    auth.kind === 'token' && auth.repositories.has(repoOf(req).toLowerCase()) ? undefined : fail(404, 'Not Found');

  const findPull = (req: FakeRequest): FakePullRequest | FakeReply =>
    pulls.get(pullKey(repoOf(req), Number(req.params.number))) ?? fail(404, 'Not Found');

  const commentJson = (c: FakeComment, req: FakeRequest) => ({
    id: c.id,
    body: c.body,
    user: { login: c.author, type: c.author.endsWith('[bot]') ? 'Bot' : 'User' },
    html_url: `${webBase}/${c.repository}/pull/${c.issueNumber}#issuecomment-${c.id}`,
    url: `${req.base}/repos/${c.repository}/issues/comments/${c.id}`,
  });

  const bodyOf = (req: FakeRequest) => (req.body ?? {}) as Record<string, unknown>;

  const route = fakeRoute<Auth>;

  const routes: FakeRoute<Auth>[] = [
    route('app.createInstallationAccessToken', 'POST', '/app/installations/:id/access_tokens', (req, auth) => {
      const installation = installations.get(Number(req.params.id));
      if (auth.kind !== 'app' || !installation || installation.appId !== auth.appId) return fail(404, 'Not Found');
      const installationId = Number(req.params.id);
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      const expiresAt = Date.now() + tokenTtlMs;
      const app = apps.get(auth.appId)!;
      tokens.set(token, {
        repositories: installation.repositories,
        login: `${app.slug}[bot]`,
        expiresAt,
        installationId,
      });
      exchanges.set(installationId, (exchanges.get(installationId) ?? 0) + 1);
      return {
        status: 201,
        body: {
          token,
          expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          permissions: { pull_requests: 'write', issues: 'write', statuses: 'write', contents: 'read' },
          repository_selection: 'selected',
        },
      };
    }),
    route('apps.getRepoInstallation', 'GET', '/repos/:owner/:repo/installation', (req, auth) => {
      if (auth.kind !== 'app') return fail(401, 'A JSON web token could not be decoded');
      for (const [id, installation] of installations) {
        if (installation.appId === auth.appId && installation.repositories.has(repoOf(req).toLowerCase())) {
          return {
            status: 200,
            body: { id, app_id: auth.appId, account: { login: req.params.owner }, target_type: 'Organization' },
          };
        }
      }
      return fail(404, 'Not Found');
    }),
    route('pulls.get', 'GET', '/repos/:owner/:repo/pulls/:number', (req, auth) => {
      const pull = canSee(auth, req) ?? findPull(req);
      if ('status' in pull) return pull;
      const repository = repoOf(req);
      return {
        status: 200,
        body: {
          number: pull.number,
          title: pull.title,
          body: pull.body,
          state: pull.state,
          draft: pull.draft,
          merged: pull.merged,
          merged_at: pull.merged ? new Date().toISOString() : null,
          user: { login: pull.author },
          html_url: `${webBase}/${repository}/pull/${pull.number}`,
          url: `${req.base}/repos/${repository}/pulls/${pull.number}`,
          head: { sha: pull.headSha, ref: pull.headRef, repo: { full_name: repository } },
          base: { ref: pull.baseRef, sha: '0'.repeat(40), repo: { full_name: repository } },
          changed_files: pull.files.length,
        },
      };
    }),
    route('pulls.listFiles', 'GET', '/repos/:owner/:repo/pulls/:number/files', (req, auth) => {
      const pull = canSee(auth, req) ?? findPull(req);
      if ('status' in pull) return pull;
      const files = pull.files.map((f) => ({
        sha: randomBytes(20).toString('hex'),
        filename: f.filename,
        status: f.status ?? 'modified',
        additions: f.additions ?? 0,
        deletions: f.deletions ?? 0,
        changes: (f.additions ?? 0) + (f.deletions ?? 0),
        ...(f.previousFilename !== undefined && { previous_filename: f.previousFilename }),
        ...(f.patch !== undefined && { patch: f.patch }),
      }));
      return pagedReply(files, req, `/repos/${repoOf(req)}/pulls/${pull.number}/files`, 30);
    }),
    route('issues.listForRepo', 'GET', '/repos/:owner/:repo/issues', (req, auth) => {
      const denied = canSee(auth, req);
      if (denied) return denied;
      const list = filed
        .filter((i) => i.repository.toLowerCase() === repoOf(req).toLowerCase())
        .map(({ repository: _, ...i }) => ({ ...i, state: 'open' }));
      return pagedReply(list, req, `/repos/${repoOf(req)}/issues`, 30);
    }),
    route('issues.create', 'POST', '/repos/:owner/:repo/issues', (req, auth) => {
      const denied = canSee(auth, req);
      if (denied) return denied;
      const { title, body } = bodyOf(req);
      if (typeof title !== 'string' || title === '') return fail(422, 'Validation Failed: title is missing');
      const number = filed.filter((i) => i.repository.toLowerCase() === repoOf(req).toLowerCase()).length + 1;
      const issue = {
        repository: repoOf(req),
        number,
        title,
        body: typeof body === 'string' ? body : '',
        html_url: `${webBase}/${repoOf(req)}/issues/${number}`,
      };
      filed.push(issue);
      const { repository: _, ...json } = issue;
      return { status: 201, body: { ...json, state: 'open' } };
    }),
    route('issues.listComments', 'GET', '/repos/:owner/:repo/issues/:number/comments', (req, auth) => {
      const denied = canSee(auth, req);
      if (denied) return denied;
      const list = comments.filter(
        (c) => c.repository.toLowerCase() === repoOf(req).toLowerCase() && c.issueNumber === Number(req.params.number),
      );
      const json = list.map((c) => commentJson(c, req));
      return pagedReply(json, req, `/repos/${repoOf(req)}/issues/${req.params.number}/comments`, 30);
    }),
    route('issues.createComment', 'POST', '/repos/:owner/:repo/issues/:number/comments', (req, auth) => {
      const pull = canSee(auth, req) ?? findPull(req);
      if ('status' in pull) return pull;
      const body = bodyOf(req).body;
      if (typeof body !== 'string' || body === '') return fail(422, 'Validation Failed: body is missing');
      const comment: FakeComment = {
        id: nextId++,
        repository: repoOf(req),
        issueNumber: pull.number,
        body,
        author: (auth as Extract<Auth, { kind: 'token' }>).login,
        updatedCount: 0,
      };
      comments.push(comment);
      return { status: 201, body: commentJson(comment, req) };
    }),
    route('issues.updateComment', 'PATCH', '/repos/:owner/:repo/issues/comments/:id', (req, auth) => {
      const denied = canSee(auth, req);
      if (denied) return denied;
      const comment = comments.find(
        (c) => c.id === Number(req.params.id) && c.repository.toLowerCase() === repoOf(req).toLowerCase(),
      );
      if (!comment) return fail(404, 'Not Found');
      const body = bodyOf(req).body;
      if (typeof body !== 'string' || body === '') return fail(422, 'Validation Failed: body is missing');
      // GitHub lets an integration edit only what it posted.
      if (comment.author !== (auth as Extract<Auth, { kind: 'token' }>).login)
        return fail(403, 'Resource not accessible by integration');
      comment.body = body;
      comment.updatedCount += 1;
      return { status: 200, body: commentJson(comment, req) };
    }),
    route('pulls.createReview', 'POST', '/repos/:owner/:repo/pulls/:number/reviews', (req, auth) => {
      const pull = canSee(auth, req) ?? findPull(req);
      if ('status' in pull) return pull;
      const { event, body, commit_id: commitId } = bodyOf(req);
      if (event !== 'APPROVE' && event !== 'REQUEST_CHANGES' && event !== 'COMMENT')
        return fail(422, 'Validation Failed: event');
      if (event !== 'APPROVE' && (typeof body !== 'string' || body === ''))
        return fail(422, `Unprocessable Entity: body is required for ${event}`);
      if (commitId !== undefined && typeof commitId !== 'string') return fail(422, 'Validation Failed: commit_id');
      const reviewer = (auth as Extract<Auth, { kind: 'token' }>).login;
      if (reviewer === pull.author && event === 'APPROVE')
        return fail(422, 'Unprocessable Entity: ["Can not approve your own pull request"]');
      if (reviewer === pull.author && event === 'REQUEST_CHANGES')
        return fail(422, 'Unprocessable Entity: ["Can not request changes on your own pull request"]');
      const review: FakeReview = {
        id: nextId++,
        repository: repoOf(req),
        pullNumber: pull.number,
        event,
        body: typeof body === 'string' ? body : '',
        commitId: (commitId as string | undefined) ?? pull.headSha,
        author: (auth as Extract<Auth, { kind: 'token' }>).login,
      };
      reviews.push(review);
      const state = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' }[event];
      return {
        status: 200,
        body: {
          id: review.id,
          state,
          body: review.body,
          commit_id: review.commitId,
          user: { login: review.author },
          html_url: `${webBase}/${review.repository}/pull/${pull.number}#pullrequestreview-${review.id}`,
        },
      };
    }),
    route('pulls.listReviews', 'GET', '/repos/:owner/:repo/pulls/:number/reviews', (req, auth) => {
      const pull = canSee(auth, req) ?? findPull(req);
      if ('status' in pull) return pull;
      const list = reviews.filter((r) => pullKey(r.repository, r.pullNumber) === pullKey(repoOf(req), pull.number));
      return {
        status: 200,
        body: list.map((r) => ({ id: r.id, body: r.body, commit_id: r.commitId, user: { login: r.author } })),
      };
    }),
    route('repos.createCommitStatus', 'POST', '/repos/:owner/:repo/statuses/:sha', (req, auth) => {
      const denied = canSee(auth, req);
      if (denied) return denied;
      const { state, description, target_url: targetUrl, context } = bodyOf(req);
      if (state !== 'pending' && state !== 'success' && state !== 'failure' && state !== 'error')
        return fail(422, 'Validation Failed: state');
      if (typeof description === 'string' && description.length > 140)
        return fail(422, 'Validation Failed: description is too long (maximum is 140 characters)');
      const status: FakeStatus = {
        id: nextId++,
        repository: repoOf(req),
        sha: req.params.sha!,
        state,
        description: typeof description === 'string' ? description : null,
        targetUrl: typeof targetUrl === 'string' ? targetUrl : null,
        context: typeof context === 'string' ? context : 'default',
      };
      statuses.push(status);
      return {
        status: 201,
        body: {
          id: status.id,
          state,
          description: status.description,
          target_url: status.targetUrl,
          context: status.context,
        },
      };
    }),
    route('repos.listCommitStatusesForRef', 'GET', '/repos/:owner/:repo/commits/:ref/statuses', (req, auth) => {
      const denied = canSee(auth, req);
      if (denied) return denied;
      const list = statuses
        .filter((s) => s.repository.toLowerCase() === repoOf(req).toLowerCase() && s.sha === req.params.ref)
        .reverse();
      return {
        status: 200,
        body: list.map((s) => ({
          id: s.id,
          state: s.state,
          description: s.description,
          target_url: s.targetUrl,
          context: s.context,
        })),
      };
    }),
    route(
      'reactions.createForIssueComment',
      'POST',
      '/repos/:owner/:repo/issues/comments/:id/reactions',
      (req, auth) => {
        const denied = canSee(auth, req);
        if (denied) return denied;
        const id = Number(req.params.id);
        if (!comments.some((c) => c.id === id && c.repository.toLowerCase() === repoOf(req).toLowerCase()))
          return fail(404, 'Not Found');
        return react(req, auth, 'comment', id);
      },
    ),
    route('reactions.createForIssue', 'POST', '/repos/:owner/:repo/issues/:number/reactions', (req, auth) => {
      const pull = canSee(auth, req) ?? findPull(req);
      if ('status' in pull) return pull;
      return react(req, auth, 'issue', pull.number);
    }),
  ];

  function react(req: FakeRequest, auth: Auth, subject: FakeReaction['subject'], id: number): FakeReply {
    const content = bodyOf(req).content;
    const allowed = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'];
    if (typeof content !== 'string' || !allowed.includes(content)) return fail(422, 'Validation Failed: content');
    const author = (auth as Extract<Auth, { kind: 'token' }>).login;
    const repository = repoOf(req);
    const existing = reactions.find(
      (r) =>
        r.repository.toLowerCase() === repository.toLowerCase() &&
        r.subject === subject &&
        r.id === id &&
        r.content === content &&
        r.author === author,
    );
    // GitHub answers 200 with the existing reaction when the same user reacts the same way twice.
    if (!existing) reactions.push({ repository, subject, id, content, author });
    return { status: existing ? 200 : 201, body: { id: nextId++, content, user: { login: author } } };
  }

  const appRoutes = new Set(['app.createInstallationAccessToken', 'apps.getRepoInstallation']);

  function authenticate(route: FakeRoute<Auth>, req: FakeRequest): Auth | FakeReply {
    const header = req.headers.authorization ?? '';
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header);
    if (!match) return fail(401, 'Requires authentication');
    const credential = match[1]!;
    if (appRoutes.has(route.name)) return verifyJwt(credential);
    const token = tokens.get(credential);
    if (!token) return fail(401, 'Bad credentials');
    if (token.expiresAt !== undefined && token.expiresAt <= Date.now()) return fail(401, 'Bad credentials');
    return { kind: 'token', repositories: token.repositories, login: token.login };
  }

  function verifyJwt(jwt: string): Auth | FakeReply {
    const parts = jwt.split('.');
    const refuse = fail(401, 'A JSON web token could not be decoded');
    if (parts.length !== 3) return refuse;
    const header = base64UrlJson(parts[0]!);
    const claims = base64UrlJson(parts[1]!);
    if (header?.alg !== 'RS256' || !claims) return refuse;
    const app = apps.get(Number(claims.iss));
    if (!app) return fail(401, `Integration not found: ${String(claims.iss)}`);
    const signed = verify(
      'RSA-SHA256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      app.publicKey,
      Buffer.from(parts[2]!, 'base64url'),
    );
    if (!signed) return refuse;
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number') return refuse;
    if (exp <= now)
      return fail(
        401,
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
      );
    if (exp - iat > 660 || iat > now + 60)
      return fail(
        401,
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
      );
    return { kind: 'app', appId: app.appId };
  }

  const repos = new FakeRepos();
  const server: FakeHttpServer = await startFakeHttpServer<Auth>({
    mounts: ['/api/v3'],
    routes: [...routes, ...githubGitRoutes(repos, canSee)],
    authenticate,
    failureBody: (status) => ({ message: STATUS_CODES[status] ?? 'Injected failure' }),
  });

  return {
    ...server,
    enterpriseUrl: `${server.url}/api/v3`,
    addApp(options = {}) {
      const appId = options.appId ?? nextId++;
      const slug = options.slug ?? `proctor-test-${appId}`;
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      apps.set(appId, { appId, slug, publicKey: createPublicKey(privateKey) });
      return { appId, slug, privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() };
    },
    addInstallation(appId, repositories) {
      if (!apps.has(appId)) throw new Error(`no app ${appId}`);
      const id = nextId++;
      installations.set(id, { appId, repositories: new Set(repositories.map((r) => r.toLowerCase())) });
      return id;
    },
    removeInstallation(installationId) {
      installations.delete(installationId);
      for (const [token, entry] of tokens) if (entry.installationId === installationId) tokens.delete(token);
    },
    addToken(token, repositories, user = 'proctor-bot') {
      tokens.set(token, { repositories: new Set(repositories.map((r) => r.toLowerCase())), login: user });
    },
    setInstallationTokenTtl(ms) {
      tokenTtlMs = ms;
    },
    addPullRequest(repository, pull) {
      const full: FakePullRequest = {
        title: `Pull request ${pull.number}`,
        body: '',
        author: 'octocat',
        headSha: randomBytes(20).toString('hex'),
        headRef: `feature-${pull.number}`,
        baseRef: 'main',
        draft: false,
        state: 'open',
        merged: false,
        files: [],
        ...pull,
      };
      pulls.set(pullKey(repository, pull.number), full);
      return full;
    },
    pullRequest: (repository, number) => pulls.get(pullKey(repository, number)),
    issues: (repository) =>
      filed.filter((i) => i.repository.toLowerCase() === repository.toLowerCase()).map(({ repository: _, ...i }) => i),
    comments: (repository, issueNumber) =>
      comments.filter((c) => c.repository.toLowerCase() === repository.toLowerCase() && c.issueNumber === issueNumber),
    reviews: (repository, pullNumber) =>
      reviews.filter((r) => pullKey(r.repository, r.pullNumber) === pullKey(repository, pullNumber)),
    statuses: (repository, sha) =>
      statuses.filter((s) => s.repository.toLowerCase() === repository.toLowerCase() && s.sha === sha),
    reactions: (repository) => reactions.filter((r) => r.repository.toLowerCase() === repository.toLowerCase()),
    tokenExchanges: (installationId) => exchanges.get(installationId) ?? 0,
    repos,
    deliverWebhook: deliverGitHubWebhook,
  };
}
