// Inbound Git sync: the default branch moved (a push), so the folder is read at that commit and each file is
// decided with syncDecision against the text both sides last agreed on. A file only the repository changed is
// imported (a new steps version; a new test case for a file without `id`); one both sides changed is recorded as a
// conflict with both texts and written nowhere; one the repository removed is reported, its test kept; one that
// fails validation is reported with its line and reason and not imported.
import { findGitSyncSettings, gitSyncFiles, saveGitSyncFile, type GitSyncFileRow } from '../db/queries/git-sync.js';
import { systemActor } from '../domain/audit.js';
import { DomainError } from '../domain/errors.js';
import { syncDecision } from '../domain/git-sync.js';
import type { PullResult } from '../../workflows/git-sync-contract.js';
import type { ServiceContext } from './context.js';
import { canonicalText, oursOf, repositoryFilesFor, testCaseFileSuffix } from './git-sync-common.js';
import { readTestCaseFile } from './test-case-file-text.js';
import { importTestCaseFile } from './test-case-files.js';
import { getTestCase } from '../db/queries/test-case-views.js';

export type { PullResult };

type Row = Omit<GitSyncFileRow, 'updated_at'>;

/** Reads the synced folder at `ref` (the pushed commit) and acts on each file as the header says. */
export async function pullRepositoryFolder(
  deps: ServiceContext,
  input: { projectId: string; ref: string },
): Promise<PullResult> {
  const result: PullResult = { imported: [], conflicts: [], removed: [], invalid: [], inSync: 0 };
  const settings = await findGitSyncSettings(deps.db, input.projectId);
  if (!settings) return result;
  const repo = await repositoryFilesFor(deps, settings);
  const files = await repo.readFolder(settings.repository, settings.folder, input.ref, testCaseFileSuffix);
  const known = new Map((await gitSyncFiles(deps.db, input.projectId)).map((r) => [r.path, r]));
  const empty = (path: string): Row => ({
    project_id: input.projectId,
    path,
    test_case_id: null,
    base_text: null,
    state: 'in_sync',
    reason: null,
    ours_text: null,
    theirs_text: null,
    pull_request_number: null,
    pull_request_url: null,
  });

  for (const file of files) {
    const before = known.get(file.path);
    known.delete(file.path);
    const row: Row = { ...empty(file.path), ...before, reason: null, ours_text: null, theirs_text: null };
    let theirs: string;
    let fileId: string | undefined;
    try {
      theirs = canonicalText(file.text);
      fileId = readTestCaseFile(theirs).file.id?.toLowerCase();
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      await saveGitSyncFile(deps.db, { ...row, state: 'invalid', reason: err.message, theirs_text: file.text });
      result.invalid.push(file.path);
      continue;
    }
    const testCaseId =
      row.test_case_id ?? (fileId && (await getTestCase(deps.db, input.projectId, fileId)) ? fileId : null);
    const ours = testCaseId ? (await oursOf(deps, input.projectId, testCaseId))?.text : undefined;
    const decision = syncDecision(row.base_text ?? undefined, ours, theirs);
    if (decision.kind === 'in_sync') {
      await saveGitSyncFile(deps.db, { ...row, test_case_id: testCaseId, base_text: theirs, state: 'in_sync' });
      result.inSync++;
    } else if (decision.kind === 'import') {
      try {
        // A file without `id` that Proctor already maps to a test case (it imported it before) updates that one.
        const text = testCaseId && !fileId ? `${theirs}id: ${testCaseId}\n` : theirs;
        const imported = await importTestCaseFile(deps, { projectId: input.projectId, text, actor: systemActor });
        await saveGitSyncFile(deps.db, { ...row, test_case_id: imported.id, base_text: theirs, state: 'in_sync' });
        result.imported.push(file.path);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        await saveGitSyncFile(deps.db, { ...row, state: 'invalid', reason: err.message, theirs_text: file.text });
        result.invalid.push(file.path);
      }
    } else if (decision.kind === 'conflict') {
      const conflict = { state: 'conflict' as const, reason: decision.reason, ours_text: ours ?? null };
      await saveGitSyncFile(deps.db, { ...row, test_case_id: testCaseId, ...conflict, theirs_text: theirs });
      result.conflicts.push(file.path);
    }
    // open_pull_request: only Proctor changed it; its request (outbound) carries the change. Nothing to record.
  }

  // Files Proctor knew that the folder no longer has.
  for (const row of known.values()) {
    if (row.state === 'removed' || !row.test_case_id) continue;
    const ours = (await oursOf(deps, input.projectId, row.test_case_id))?.text;
    const decision = syncDecision(row.base_text ?? undefined, ours, undefined);
    if (decision.kind === 'removed_in_repository') {
      const reason =
        'the repository removed the file; the test case is kept: delete it in Proctor, or restore the file';
      await saveGitSyncFile(deps.db, { ...row, state: 'removed', reason });
      result.removed.push(row.path);
    } else if (decision.kind === 'conflict') {
      await saveGitSyncFile(deps.db, { ...row, state: 'conflict', reason: decision.reason, ours_text: ours ?? null });
      result.conflicts.push(row.path);
    }
  }
  return result;
}
