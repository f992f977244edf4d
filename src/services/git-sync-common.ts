// What outbound and inbound Git sync share: the repository's file calls for the project's setting, the texts
// syncDecision compares (canonical: a file read and written again, so a reformatting in the repository is no
// change), and the file name a test case gets in the folder.
import type { GitSyncSettingsRow } from '../db/queries/git-sync.js';
import { ConflictError, NotFoundError } from '../domain/errors.js';
import { githubFiles } from '../git/github-files.js';
import { gitlabFiles } from '../git/gitlab-files.js';
import type { RepositoryFiles } from '../git/repository-files.js';
import type { ServiceContext } from './context.js';
import { gitClientFor } from './git-clients.js';
import { readTestCaseFile, schemaUrlOf, writeTestCaseFile } from './test-case-file-text.js';
import { exportTestCaseFile } from './test-case-files.js';

/** The suffix of a test-case file: other files in the folder (a README) are not Proctor's. */
export const testCaseFileSuffix = '.proctor.yaml';

// The schema line names the path alone, whichever process writes it: the API (with a public address) and the
// worker (without) must write the same bytes, or every sync would see a change.
const schemaUrl = schemaUrlOf(undefined);

export async function repositoryFilesFor(deps: ServiceContext, settings: GitSyncSettingsRow): Promise<RepositoryFiles> {
  const target = { repository: settings.repository };
  return settings.provider === 'github'
    ? githubFiles(await gitClientFor(deps, settings.project_id, { provider: 'github', ...target }))
    : gitlabFiles(await gitClientFor(deps, settings.project_id, { provider: 'gitlab', ...target }));
}

/** The canonical text of a file; throws TestCaseFileError (line and reason) for a file that fails validation. */
export function canonicalText(text: string): string {
  return writeTestCaseFile(readTestCaseFile(text).file, schemaUrl);
}

/** Proctor's side: the test case's file and its name, or undefined when it is gone or has no recorded steps. */
export async function oursOf(
  deps: ServiceContext,
  projectId: string,
  testCaseId: string,
): Promise<{ fileName: string; text: string } | undefined> {
  try {
    const { fileName, file } = await exportTestCaseFile({ db: deps.db }, { projectId, testCaseId });
    return { fileName, text: canonicalText(file) };
  } catch (err) {
    if (err instanceof NotFoundError || err instanceof ConflictError) return undefined;
    throw err;
  }
}
