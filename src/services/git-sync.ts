// Outbound Git sync: when a test changes in Proctor (a burn-in, an accepted heal or expectation proposal, an edit
// of its steps), its file is proposed to the repository in a pull/merge request from a branch of Proctor's own,
// never pushed to the default branch. Run by the gitSync workflow's activity, so every step is safe to repeat:
// the branch is found before it is created, the file is written only when the branch holds other text, and the
// open request from the branch is found before one is opened (a retry updates it, never opens a second).
import { findGitSyncSettings, gitSyncFileOfTestCase, saveGitSyncFile } from '../db/queries/git-sync.js';
import { InvalidError } from '../domain/errors.js';
import { syncDecision } from '../domain/git-sync.js';
import type { ProposeResult } from '../../workflows/git-sync-contract.js';
import type { ServiceContext } from './context.js';
import { canonicalText, oursOf, repositoryFilesFor } from './git-sync-common.js';
import { TestCaseFileError } from './test-case-file-text.js';

export type { ProposeResult };

/** Proctor's branch for one test case's file: one per test case, so its open request is found again. */
export const syncBranchOf = (testCaseId: string) => `proctor-sync-${testCaseId}`;

/** Proposes the test case's current file to the repository when only Proctor changed it (see the header). */
export async function proposeTestCaseFile(
  deps: ServiceContext,
  input: { projectId: string; testCaseId: string },
): Promise<ProposeResult> {
  const settings = await findGitSyncSettings(deps.db, input.projectId);
  if (!settings) return { outcome: 'not_configured' };
  const ours = await oursOf(deps, input.projectId, input.testCaseId);
  if (!ours) return { outcome: 'no_steps' };
  const known = await gitSyncFileOfTestCase(deps.db, input.projectId, input.testCaseId);
  const path = known?.path ?? `${settings.folder}/${ours.fileName}`;
  const repo = await repositoryFilesFor(deps, settings);
  const { repository, branch: base } = settings;
  const head = await repo.branchHead(repository, base);
  const theirsRaw = head ? await repo.readFile(repository, path, head) : undefined;
  let theirs: string | undefined;
  try {
    theirs = theirsRaw === undefined ? undefined : canonicalText(theirsRaw);
  } catch (err) {
    if (!(err instanceof TestCaseFileError)) throw err;
    // The repository's file is broken: that is for the push that brought it to report; Proctor's text is proposed.
    theirs = theirsRaw;
  }
  const row = {
    project_id: input.projectId,
    path,
    test_case_id: input.testCaseId,
    base_text: known?.base_text ?? null,
    ours_text: null as string | null,
    theirs_text: null as string | null,
    reason: null as string | null,
    pull_request_number: known?.pull_request_number ?? null,
    pull_request_url: known?.pull_request_url ?? null,
  };
  const decision = syncDecision(known?.base_text ?? undefined, ours.text, theirs);
  switch (decision.kind) {
    case 'in_sync':
      await saveGitSyncFile(deps.db, { ...row, base_text: ours.text, state: 'in_sync' });
      return { outcome: decision.kind, path };
    case 'open_pull_request': {
      if (!head) throw new InvalidError(`the repository ${repository} has no branch ${base}`);
      const branch = syncBranchOf(input.testCaseId);
      if (!(await repo.branchHead(repository, branch))) await repo.createBranch(repository, branch, head);
      const name = ours.fileName.replace(/\.proctor\.yaml$/, '');
      if ((await repo.readFile(repository, path, branch)) !== ours.text)
        await repo.writeFile(repository, {
          branch,
          path,
          text: ours.text,
          message: `Proctor: ${decision.created ? 'add' : 'update'} the test ${name}`,
        });
      const request =
        (await repo.findOpenRequest(repository, branch, base)) ??
        (await repo.openRequest(repository, {
          branch,
          base,
          title: `Proctor: ${decision.created ? 'add' : 'update'} the test ${name}`,
          body:
            `Proctor changed this test (a burn-in, an accepted proposal or an edit of its steps). Merging makes ` +
            `\`${path}\` what Proctor runs; later changes in Proctor update this request.`,
        }));
      await saveGitSyncFile(deps.db, {
        ...row,
        state: 'pull_request',
        ours_text: ours.text,
        pull_request_number: request.number,
        pull_request_url: request.url,
      });
      return { outcome: decision.kind, path, pullRequestUrl: request.url };
    }
    case 'conflict':
      await saveGitSyncFile(deps.db, {
        ...row,
        state: 'conflict',
        reason: decision.reason,
        ours_text: ours.text,
        theirs_text: theirs ?? null,
      });
      return { outcome: decision.kind, path };
    default:
      // Only the repository changed it (an import the push brings) or removed it (reported by the push): not ours.
      return { outcome: decision.kind, path };
  }
}
