// The Git page's "Test cases in Git" section: where the project keeps its test-case files, and what the last look
// at each file found. A conflict shows both texts side by side (both sides changed since they last agreed), so a
// person can settle it in one place or the other; Proctor writes neither.
import type { GitSyncFileView, GitSyncSettingsView } from '../services/git-sync-settings.js';
import { ColumnHeads, Table, When } from './components.js';

const stateWords: Record<GitSyncFileView['state'], string> = {
  in_sync: 'in sync',
  pull_request: 'change proposed',
  conflict: 'conflict',
  removed: 'removed in the repository',
  invalid: 'refused',
};

function FileState(props: { base: string; file: GitSyncFileView }) {
  const f = props.file;
  return (
    <>
      <span class={f.state === 'conflict' || f.state === 'invalid' ? 'status FAILED' : 'status'}>
        {stateWords[f.state]}
      </span>
      {f.pullRequestUrl && (
        <>
          {' '}
          <a href={f.pullRequestUrl}>open the proposal</a>
        </>
      )}
      {f.reason && <p class="muted">{f.reason}</p>}
      {f.testCaseId && (
        <p>
          <a href={`${props.base}/test-cases/${f.testCaseId}`}>the test case</a>
        </p>
      )}
    </>
  );
}

function Conflict(props: { file: GitSyncFileView }) {
  const f = props.file;
  return (
    <details>
      <summary>Both texts of {f.path}</summary>
      <div class="beside-pair">
        <figure>
          <figcaption>In Proctor</figcaption>
          <pre>{f.ours}</pre>
        </figure>
        <figure>
          <figcaption>In the repository</figcaption>
          <pre>{f.theirs}</pre>
        </figure>
      </div>
    </details>
  );
}

export function GitSyncSection(props: {
  base: string;
  status: { settings: GitSyncSettingsView; files: GitSyncFileView[]; conflicts: number } | undefined;
}) {
  const status = props.status;
  if (!status)
    return (
      <p>
        Not set up: test cases are kept in Proctor only. <code>PUT /v1/git-sync</code> chooses a repository folder
        (docs/test-case-files.md).
      </p>
    );
  const { settings, files } = status;
  const conflicts = files.filter((f) => f.state === 'conflict');
  return (
    <>
      <p>
        Files in <code>{settings.folder}</code> of {settings.provider} <code>{settings.repository}</code>, branch{' '}
        <code>{settings.branch}</code>. Pushes arrive at <code>{settings.webhookUrl}</code>.
      </p>
      <p>
        {files.length} file{files.length === 1 ? '' : 's'} known;{' '}
        <strong>
          {status.conflicts} conflict{status.conflicts === 1 ? '' : 's'}
        </strong>
        .
      </p>
      {files.length > 0 && (
        <Table label="Test-case files in Git">
          <ColumnHeads names={['File', 'State', 'Last looked']} />
          <tbody>
            {files.map((f) => (
              <tr>
                <td>
                  <code>{f.path}</code>
                </td>
                <td>
                  <FileState base={props.base} file={f} />
                </td>
                <td>
                  <When at={f.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {conflicts.map((f) => (
        <Conflict file={f} />
      ))}
    </>
  );
}
