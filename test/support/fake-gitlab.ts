// A local GitLab REST server (`/api/v4`) for tests: the real @gitbeaker/rest client talks to it over HTTP, with
// `host` = `gitlab.url` (as gitlab.com or a self-managed instance). State lives in memory.
//
// Use:
//   const gl = await startFakeGitLab();
//   const project = gl.addProject('acme/web/shop');            // { id, path }
//   gl.addToken('glpat-test', ['acme/web/shop']);              // a project/group access token for these projects
//   gl.addMergeRequest('acme/web/shop', { iid: 3, sha: 'abc…', files: [...] });
//   … run the code under test with baseUrl gl.url …
//   gl.notes('acme/web/shop', 3), gl.statuses('acme/web/shop', sha), gl.awardEmoji(…), gl.hooks('acme/web/shop')
//   gl.requests                                                // every request: method, path, route, body, status
//   gl.failNext('notes.create', 2)                             // the next 2 calls of that route answer 503
//   await gl.deliverWebhook('acme/web/shop', { event: 'merge_requests', payload })  // to the project's hooks
//
// Authentication: every route needs `PRIVATE-TOKEN: <token>` (or `Authorization: Bearer <token>`) of a
// registered token, else 401 `{"message":"401 Unauthorized"}`; a token that does not cover the project gets
// 404 `{"message":"404 Project Not Found"}`, as GitLab answers. Projects are addressed by id or by URL-encoded
// path (`acme%2Fweb%2Fshop`). Hooks are returned without their secret token, as GitLab does; `hooks()` shows it.
//
// Route names for failNext: mergeRequests.show, mergeRequests.diffs, mergeRequests.changes, notes.list,
// notes.create, notes.edit, statuses.create, statuses.list, awardEmoji.mergeRequest, awardEmoji.note,
// hooks.list, hooks.create, hooks.edit.
import { gitlabGitRoutes } from './fake-gitlab-git.js';
import { FakeRepos } from './fake-repos.js';
import { randomBytes, randomUUID } from 'node:crypto';
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

export interface FakeMrFile {
  newPath: string;
  oldPath?: string;
  newFile?: boolean;
  deletedFile?: boolean;
  renamedFile?: boolean;
  /** The unified diff hunks; omit for a binary file (the fake answers GitLab's "Binary files … differ"). */
  diff?: string;
}

export interface FakeMergeRequest {
  iid: number;
  title: string;
  description: string | null;
  author: string;
  sha: string;
  sourceBranch: string;
  targetBranch: string;
  draft: boolean;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  files: FakeMrFile[];
}

export interface FakeNote {
  id: number;
  projectId: number;
  mrIid: number;
  body: string;
  author: string;
  updatedCount: number;
}

export interface FakeGitLabStatus {
  projectId: number;
  sha: string;
  state: string;
  name: string;
  description: string | null;
  targetUrl: string | null;
}

export interface FakeAwardEmoji {
  projectId: number;
  mrIid: number;
  /** Set for an award on a note, absent for one on the merge request. */
  noteId?: number;
  name: string;
  author: string;
}

export interface FakeHook {
  id: number;
  projectId: number;
  url: string;
  /** The secret GitLab sends as `X-Gitlab-Token`; never in API answers. */
  token: string | undefined;
  events: Record<string, boolean>;
  enableSslVerification: boolean;
}

/** The fake's HTTP server (its request log, failNext and close) and GitLab's state behind it. */
export interface FakeGitLab extends FakeHttpServer {
  /** `http://127.0.0.1:PORT`: the instance URL (the API is under `/api/v4`). */
  url: string;
  addProject(path: string): { id: number; path: string };
  /** The projects' branches, commits and the merge requests opened through the API (fake-gitlab-git.ts), by path. */
  repos: FakeRepos;
  /** A project or group access token that may use these project paths, acting as `user`. */
  addToken(token: string, projects: string[], user?: string): void;
  addMergeRequest(project: string, mr: Partial<FakeMergeRequest> & { iid: number }): FakeMergeRequest;
  mergeRequest(project: string, iid: number): FakeMergeRequest | undefined;
  notes(project: string, mrIid: number): FakeNote[];
  /** Issues filed in the project (`POST /projects/:id/issues`). */
  issues(project: string): { iid: number; title: string; description: string; web_url: string }[];
  statuses(project: string, sha: string): FakeGitLabStatus[];
  awardEmoji(project: string, mrIid: number): FakeAwardEmoji[];
  hooks(project: string): FakeHook[];
  /**
   * Delivers an event as GitLab does to every hook of the project that subscribes to it: `X-Gitlab-Event`
   * (`Merge Request Hook`…), `X-Gitlab-Token` (the hook's secret, unless `token` overrides it),
   * `X-Gitlab-Event-UUID` and `Idempotency-Key` (a new UUID unless `uuid` repeats one). One answer per hook
   * (status 0 when the hook's URL did not answer).
   */
  deliverWebhook(
    project: string,
    delivery: { event: HookEvent; payload: unknown; uuid?: string; token?: string },
  ): Promise<Array<{ hookId: number; status: number; body: string; uuid: string }>>;
}

export type HookEvent = 'merge_requests' | 'notes' | 'deployments' | 'pipelines' | 'push';

const hookEventHeader: Record<HookEvent, { field: string; header: string }> = {
  merge_requests: { field: 'merge_requests_events', header: 'Merge Request Hook' },
  notes: { field: 'note_events', header: 'Note Hook' },
  deployments: { field: 'deployment_events', header: 'Deployment Hook' },
  pipelines: { field: 'pipeline_events', header: 'Pipeline Hook' },
  push: { field: 'push_events', header: 'Push Hook' },
};

interface Project {
  id: number;
  path: string;
}

interface Auth {
  projects: Set<string>;
  user: string;
}

const fail = (status: number, message: string): FakeReply => ({ status, body: { message } });

const hookEventFields = [
  'push_events',
  'merge_requests_events',
  'note_events',
  'deployment_events',
  'pipeline_events',
  'job_events',
  'issues_events',
  'tag_push_events',
  'releases_events',
];

export async function startFakeGitLab(): Promise<FakeGitLab> {
  const projects = new Map<number, Project>();
  const tokens = new Map<string, Auth>();
  const mrs = new Map<string, FakeMergeRequest>();
  const notes: FakeNote[] = [];
  const filed: { projectId: number; iid: number; title: string; description: string; web_url: string }[] = [];
  const statuses: FakeGitLabStatus[] = [];
  const awards: FakeAwardEmoji[] = [];
  const hooks: FakeHook[] = [];
  let nextId = 100;
  const webBase = 'https://gitlab.example';

  const projectByRef = (ref: string): Project | undefined =>
    /^\d+$/.test(ref)
      ? projects.get(Number(ref))
      : [...projects.values()].find((p) => p.path.toLowerCase() === ref.toLowerCase());

  /** The project the request addresses, if the token may see it; else GitLab's 404. */
  const project = (req: FakeRequest, auth: Auth): Project | FakeReply => {
    const p = projectByRef(req.params.project!);
    return p && auth.projects.has(p.path.toLowerCase()) ? p : fail(404, '404 Project Not Found');
  };
  const mrKey = (projectId: number, iid: number) => `${projectId}!${iid}`;
  const findMr = (req: FakeRequest, auth: Auth): { p: Project; mr: FakeMergeRequest } | FakeReply => {
    const p = project(req, auth);
    if ('status' in p) return p;
    const mr = mrs.get(mrKey(p.id, Number(req.params.iid)));
    return mr ? { p, mr } : fail(404, '404 Not found');
  };
  const bodyOf = (req: FakeRequest) => (req.body ?? {}) as Record<string, unknown>;

  const diffJson = (f: FakeMrFile) => ({
    old_path: f.oldPath ?? f.newPath,
    new_path: f.newPath,
    a_mode: f.newFile ? '0' : '100644',
    b_mode: f.deletedFile ? '0' : '100644',
    new_file: f.newFile ?? false,
    renamed_file: f.renamedFile ?? false,
    deleted_file: f.deletedFile ?? false,
    diff: f.diff ?? `Binary files a/${f.oldPath ?? f.newPath} and b/${f.newPath} differ\n`,
  });

  const mrJson = (p: Project, mr: FakeMergeRequest) => ({
    id: mr.iid + p.id * 1000,
    iid: mr.iid,
    project_id: p.id,
    title: mr.draft && !/^(draft:|\[draft\])/i.test(mr.title) ? `Draft: ${mr.title}` : mr.title,
    description: mr.description,
    state: mr.state,
    draft: mr.draft,
    work_in_progress: mr.draft,
    author: { username: mr.author, name: mr.author },
    source_branch: mr.sourceBranch,
    target_branch: mr.targetBranch,
    sha: mr.sha,
    diff_refs: { head_sha: mr.sha, base_sha: '0'.repeat(40), start_sha: '0'.repeat(40) },
    web_url: `${webBase}/${p.path}/-/merge_requests/${mr.iid}`,
  });

  const noteJson = (n: FakeNote) => ({
    id: n.id,
    body: n.body,
    author: { username: n.author },
    noteable_type: 'MergeRequest',
    noteable_iid: n.mrIid,
    system: false,
  });

  const hookJson = (h: FakeHook) => ({
    id: h.id,
    url: h.url,
    project_id: h.projectId,
    enable_ssl_verification: h.enableSslVerification,
    ...h.events,
  });

  const route = fakeRoute<Auth>;

  const mrPath = '/projects/:project/merge_requests/:iid';

  const routes: FakeRoute<Auth>[] = [
    route('mergeRequests.show', 'GET', mrPath, (req, auth) => {
      const found = findMr(req, auth);
      return 'status' in found ? found : { status: 200, body: mrJson(found.p, found.mr) };
    }),
    route('mergeRequests.diffs', 'GET', `${mrPath}/diffs`, (req, auth) => {
      const found = findMr(req, auth);
      if ('status' in found) return found;
      return pagedReply(
        found.mr.files.map(diffJson),
        req,
        `/projects/${found.p.id}/merge_requests/${found.mr.iid}/diffs`,
        20,
      );
    }),
    route('mergeRequests.changes', 'GET', `${mrPath}/changes`, (req, auth) => {
      const found = findMr(req, auth);
      return 'status' in found
        ? found
        : { status: 200, body: { ...mrJson(found.p, found.mr), changes: found.mr.files.map(diffJson) } };
    }),
    route('notes.list', 'GET', `${mrPath}/notes`, (req, auth) => {
      const found = findMr(req, auth);
      if ('status' in found) return found;
      const list = notes.filter((n) => n.projectId === found.p.id && n.mrIid === found.mr.iid);
      return pagedReply(list.map(noteJson), req, `/projects/${found.p.id}/merge_requests/${found.mr.iid}/notes`, 20);
    }),
    route('notes.create', 'POST', `${mrPath}/notes`, (req, auth) => {
      const found = findMr(req, auth);
      if ('status' in found) return found;
      const body = bodyOf(req).body;
      if (typeof body !== 'string' || body === '') return fail(400, '400 Bad request - body is missing');
      const note: FakeNote = {
        id: nextId++,
        projectId: found.p.id,
        mrIid: found.mr.iid,
        body,
        author: auth.user,
        updatedCount: 0,
      };
      notes.push(note);
      return { status: 201, body: noteJson(note) };
    }),
    route('notes.edit', 'PUT', `${mrPath}/notes/:noteId`, (req, auth) => {
      const found = findMr(req, auth);
      if ('status' in found) return found;
      const note = notes.find(
        (n) => n.id === Number(req.params.noteId) && n.projectId === found.p.id && n.mrIid === found.mr.iid,
      );
      if (!note) return fail(404, '404 Not found');
      if (note.author !== auth.user) return fail(403, '403 Forbidden');
      const body = bodyOf(req).body;
      if (typeof body !== 'string' || body === '') return fail(400, '400 Bad request - body is missing');
      note.body = body;
      note.updatedCount += 1;
      return { status: 200, body: noteJson(note) };
    }),
    route('issues.list', 'GET', '/projects/:project/issues', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const list = filed.filter((i) => i.projectId === p.id).map(({ projectId: _, ...i }) => i);
      return pagedReply(list, req, `/projects/${p.id}/issues`, 20);
    }),
    route('issues.create', 'POST', '/projects/:project/issues', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const { title, description } = bodyOf(req);
      if (typeof title !== 'string' || title === '') return fail(400, '400 Bad request - title is missing');
      const iid = filed.filter((i) => i.projectId === p.id).length + 1;
      const issue = {
        projectId: p.id,
        iid,
        title,
        description: typeof description === 'string' ? description : '',
        web_url: `${webBase}/${p.path}/-/issues/${iid}`,
      };
      filed.push(issue);
      const { projectId: _, ...json } = issue;
      return { status: 201, body: json };
    }),
    route('statuses.create', 'POST', '/projects/:project/statuses/:sha', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const { state, name, context, target_url: targetUrl, description } = bodyOf(req);
      if (
        typeof state !== 'string' ||
        !['pending', 'running', 'success', 'failed', 'canceled', 'skipped'].includes(state)
      ) {
        return fail(400, '400 Bad request - state does not have a valid value');
      }
      const statusName = typeof name === 'string' ? name : typeof context === 'string' ? context : 'default';
      const previous = statuses
        .filter((s) => s.projectId === p.id && s.sha === req.params.sha && s.name === statusName)
        .at(-1);
      // GitLab's status is a state machine: posting the state it already has is refused.
      if (previous?.state === state) return fail(400, `Cannot transition status via :${state} from :${state}`);
      const status: FakeGitLabStatus = {
        projectId: p.id,
        sha: req.params.sha!,
        state,
        name: statusName,
        description: typeof description === 'string' ? description : null,
        targetUrl: typeof targetUrl === 'string' ? targetUrl : null,
      };
      statuses.push(status);
      return {
        status: 201,
        body: {
          id: nextId++,
          sha: status.sha,
          status: state,
          name: status.name,
          target_url: status.targetUrl,
          description: status.description,
        },
      };
    }),
    route('statuses.list', 'GET', '/projects/:project/repository/commits/:sha/statuses', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const list = statuses.filter((s) => s.projectId === p.id && s.sha === req.params.sha);
      return {
        status: 200,
        body: list.map((s) => ({
          sha: s.sha,
          status: s.state,
          name: s.name,
          target_url: s.targetUrl,
          description: s.description,
        })),
      };
    }),
    route('awardEmoji.mergeRequest', 'POST', `${mrPath}/award_emoji`, (req, auth) => {
      const found = findMr(req, auth);
      return 'status' in found ? found : award(req, auth, found.p.id, found.mr.iid);
    }),
    route('awardEmoji.note', 'POST', `${mrPath}/notes/:noteId/award_emoji`, (req, auth) => {
      const found = findMr(req, auth);
      if ('status' in found) return found;
      const noteId = Number(req.params.noteId);
      if (!notes.some((n) => n.id === noteId && n.projectId === found.p.id && n.mrIid === found.mr.iid))
        return fail(404, '404 Not found');
      return award(req, auth, found.p.id, found.mr.iid, noteId);
    }),
    route('hooks.list', 'GET', '/projects/:project/hooks', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const list = hooks.filter((h) => h.projectId === p.id);
      return pagedReply(list.map(hookJson), req, `/projects/${p.id}/hooks`, 20);
    }),
    route('hooks.create', 'POST', '/projects/:project/hooks', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const body = bodyOf(req);
      if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url))
        return fail(400, '400 Bad request - url is invalid');
      const hook: FakeHook = {
        id: nextId++,
        projectId: p.id,
        url: body.url,
        token: typeof body.token === 'string' ? body.token : undefined,
        events: hookEvents(body, { push_events: true }),
        enableSslVerification: body.enable_ssl_verification !== false,
      };
      hooks.push(hook);
      return { status: 201, body: hookJson(hook) };
    }),
    route('hooks.edit', 'PUT', '/projects/:project/hooks/:hookId', (req, auth) => {
      const p = project(req, auth);
      if ('status' in p) return p;
      const hook = hooks.find((h) => h.id === Number(req.params.hookId) && h.projectId === p.id);
      if (!hook) return fail(404, '404 Not found');
      const body = bodyOf(req);
      if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url))
        return fail(400, '400 Bad request - url is invalid');
      hook.url = body.url;
      if (typeof body.token === 'string') hook.token = body.token;
      hook.events = hookEvents(body, hook.events);
      if (typeof body.enable_ssl_verification === 'boolean') hook.enableSslVerification = body.enable_ssl_verification;
      return { status: 200, body: hookJson(hook) };
    }),
  ];

  function hookEvents(body: Record<string, unknown>, previous: Record<string, boolean>): Record<string, boolean> {
    const events: Record<string, boolean> = {};
    for (const field of hookEventFields) {
      const value = body[field];
      events[field] =
        typeof value === 'boolean'
          ? value
          : value === 'true'
            ? true
            : value === 'false'
              ? false
              : (previous[field] ?? false);
    }
    return events;
  }

  function award(req: FakeRequest, auth: Auth, projectId: number, mrIid: number, noteId?: number): FakeReply {
    const name = bodyOf(req).name;
    if (typeof name !== 'string' || name === '') return fail(400, '400 Bad request - name is missing');
    // GitLab refuses the same emoji twice from one user.
    if (
      awards.some(
        (a) =>
          a.projectId === projectId &&
          a.mrIid === mrIid &&
          a.noteId === noteId &&
          a.name === name &&
          a.author === auth.user,
      )
    ) {
      return fail(404, '404 Award Emoji Name has already been taken');
    }
    awards.push({ projectId, mrIid, noteId, name, author: auth.user });
    return {
      status: 201,
      body: { id: nextId++, name, user: { username: auth.user }, awardable_type: noteId ? 'Note' : 'MergeRequest' },
    };
  }

  function authenticate(_route: FakeRoute<Auth>, req: FakeRequest): Auth | FakeReply {
    const privateToken = req.headers['private-token'];
    const bearer = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const credential = (Array.isArray(privateToken) ? privateToken[0] : privateToken) ?? bearer;
    const auth = credential === undefined ? undefined : tokens.get(credential);
    return auth ?? fail(401, '401 Unauthorized');
  }

  const repos = new FakeRepos();
  const server: FakeHttpServer = await startFakeHttpServer<Auth>({
    mounts: ['/api/v4'],
    routes: [...routes, ...gitlabGitRoutes(repos, project)],
    authenticate,
    failureBody: (status) => ({ message: `${status} ${STATUS_CODES[status] ?? 'Injected failure'}` }),
  });

  const projectOrThrow = (path: string): Project => {
    const p = projectByRef(path);
    if (!p) throw new Error(`no project ${path}`);
    return p;
  };

  return {
    ...server,
    repos,
    addProject(path) {
      const p = { id: nextId++, path };
      projects.set(p.id, p);
      return { ...p };
    },
    addToken(token, paths, user = 'project_1_bot') {
      tokens.set(token, { projects: new Set(paths.map((p) => p.toLowerCase())), user });
    },
    addMergeRequest(path, mr) {
      const p = projectOrThrow(path);
      const full: FakeMergeRequest = {
        title: `Merge request ${mr.iid}`,
        description: '',
        author: 'alice',
        sha: randomBytes(20).toString('hex'),
        sourceBranch: `feature-${mr.iid}`,
        targetBranch: 'main',
        draft: false,
        state: 'opened',
        files: [],
        ...mr,
      };
      mrs.set(mrKey(p.id, mr.iid), full);
      return full;
    },
    mergeRequest: (path, iid) => mrs.get(mrKey(projectOrThrow(path).id, iid)),
    issues: (path) => filed.filter((i) => i.projectId === projectOrThrow(path).id).map(({ projectId: _, ...i }) => i),
    notes: (path, mrIid) => notes.filter((n) => n.projectId === projectOrThrow(path).id && n.mrIid === mrIid),
    statuses: (path, sha) => statuses.filter((s) => s.projectId === projectOrThrow(path).id && s.sha === sha),
    awardEmoji: (path, mrIid) => awards.filter((a) => a.projectId === projectOrThrow(path).id && a.mrIid === mrIid),
    hooks: (path) => hooks.filter((h) => h.projectId === projectOrThrow(path).id),
    async deliverWebhook(path, delivery) {
      const { field, header } = hookEventHeader[delivery.event];
      const targets = hooks.filter((h) => h.projectId === projectOrThrow(path).id && h.events[field]);
      const uuid = delivery.uuid ?? randomUUID();
      const body = JSON.stringify(delivery.payload);
      return Promise.all(
        targets.map(async (hook) => {
          const token = delivery.token ?? hook.token;
          // GitLab logs a failed delivery on the hook and carries on: status 0 says nobody answered.
          const res = await fetch(hook.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'user-agent': 'GitLab/fake',
              'x-gitlab-event': header,
              'x-gitlab-event-uuid': uuid,
              'x-gitlab-webhook-uuid': `hook-${hook.id}`,
              'x-gitlab-instance': server.url,
              'idempotency-key': uuid,
              ...(token !== undefined && { 'x-gitlab-token': token }),
            },
            body,
          }).catch((err: unknown) => err as Error);
          if (res instanceof Error) return { hookId: hook.id, status: 0, body: res.message, uuid };
          return { hookId: hook.id, status: res.status, body: await res.text(), uuid };
        }),
      );
    },
  };
}
