// What the tests of Proctor's GitHub and GitLab clients against the fake providers share: a client of each kind
// pointed at a fake, a GitLab project with one merge request, and the error a call ends with.
import { GitHubClient } from '../../src/git/github.js';
import type { FakeGitHub } from './fake-github.js';
import { startFakeGitLab, type FakeGitLab, type FakeMergeRequest } from './fake-gitlab.js';

/** A GitHub client authenticated as the App (`app` from `gh.addApp()`, or another key for the same id). */
export const githubAppClient = (gh: FakeGitHub, app: { appId: number; privateKey: string }) =>
  new GitHubClient({ auth: { kind: 'app', appId: String(app.appId), privateKey: app.privateKey }, baseUrl: gh.url });

/** The token the GitLab fake of `startGitLabWithMergeRequest` accepts for its project. */
export const gitlabToken = 'glpat-project';

/** A fake GitLab with the project `repository`, the token `gitlabToken` for it and this merge request. */
export async function startGitLabWithMergeRequest(
  repository: string,
  mr: Partial<FakeMergeRequest> & { iid: number },
): Promise<{ gl: FakeGitLab; projectId: number }> {
  const gl = await startFakeGitLab();
  const projectId = gl.addProject(repository).id;
  gl.addToken(gitlabToken, [repository]);
  gl.addMergeRequest(repository, mr);
  return { gl, projectId };
}

/** The error the call failed with; throws when it succeeded. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}
