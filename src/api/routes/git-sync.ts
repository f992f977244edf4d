import type { OpenApiApp } from '../openapi.js';
import { operation, serveResource } from '../operation-routes.js';
import { deleted } from '../resource-routes.js';
import { Deleted } from '../../schemas/common.js';
import { GitSyncSettingsSchema, GitSyncStatusSchema, SaveGitSyncSettings } from '../../schemas/git-sync.js';
import {
  deleteGitSyncSettings,
  getGitSyncSettings,
  gitSyncStatus,
  saveGitSyncSettings,
} from '../../services/git-sync-settings.js';

// Git sync (docs/test-case-files.md, "Git sync"): the project's tests as files in a folder of a repository.

const tags = ['Test cases'];
const path = '/v1/git-sync';

const routes = {
  get: operation({
    method: 'get',
    path,
    tags,
    summary: "The project's Git sync setting",
    description: '404 when the project keeps no tests in Git.',
    answers: GitSyncSettingsSchema,
    answer: 'The setting',
  }),
  save: operation({
    method: 'put',
    path,
    tags,
    summary: 'Keep the tests in a folder of a repository (Git sync)',
    description:
      "Through the project's GitHub or GitLab integration (404 without one; nothing saved). From then on a test that changes in Proctor " +
      '(a burn-in, an accepted heal or expectation proposal, an edit of its steps) is proposed as its file in a pull/merge request from ' +
      "a branch of Proctor's own, never pushed to `branch`; and a push to `branch` (its webhook, signed with the integration's webhook " +
      'secret, delivered to `webhookUrl`) is read: a file only the repository changed becomes the test, one both sides changed is a ' +
      'conflict shown in `GET /v1/git-sync/status`, never overwritten. Another repository or folder forgets what was agreed with the old one. ' +
      'For GitLab, saving creates or refreshes the project hook with push events; GitLab not answering saves the setting and says so ' +
      '(`webhookProblem`): save again.',
    body: SaveGitSyncSettings,
    answers: GitSyncSettingsSchema,
    answer: 'The setting after the save',
  }),
  remove: operation({
    method: 'delete',
    path,
    tags,
    summary: 'Stop Git sync',
    description: 'Nothing in the repository changes; open pull/merge requests stay open.',
    answers: Deleted,
    answer: 'Deleted',
  }),
  status: operation({
    method: 'get',
    path: `${path}/status`,
    tags,
    summary:
      'What Git sync found, file by file: conflicts with both texts, proposed changes, removed and refused files',
    answers: GitSyncStatusSchema,
    answer: 'The setting and the files of the folder Proctor knows',
  }),
};

export function registerGitSync(app: OpenApiApp): void {
  serveResource(app, routes, {
    get: ({ services, projectId }) => getGitSyncSettings(services, projectId),
    save: ({ services, projectId, body }) => saveGitSyncSettings(services, projectId, body),
    remove: async ({ services, projectId }) => deleted(await deleteGitSyncSettings(services, projectId)),
    status: ({ services, projectId }) => gitSyncStatus(services, projectId),
  });
}
