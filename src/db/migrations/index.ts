import type { Migration } from 'kysely';
import * as m0001 from './2026_11_21_0001_foundation.js';
import * as m0002 from './2026_11_21_0002_runs.js';
import * as m0003 from './2026_11_21_0003_run_idempotency.js';
import * as m0004 from './2026_11_23_0004_chats.js';
import * as healProposals from './2026_11_23_0005_heal_proposals.js';
import * as remoteTunnels from './2026_11_23_0006_remote_tunnels.js';
import * as buildUploads from './2026_11_23_0007_build_uploads.js';
import * as gitIntegrations from './2026_11_23_0008_git_integrations.js';
import * as changeReviews from './2026_11_23_0009_change_reviews.js';
import * as mergeRequestReviews from './2026_11_23_0010_merge_request_reviews.js';
import * as dashboard from './2026_11_23_0011_dashboard.js';
import * as changeNotifications from './2026_11_23_0013_change_notifications.js';
import * as catalogueChanges from './2026_11_23_0014_catalogue_changes.js';
import * as webhookOutbox from './2026_11_23_0015_webhook_outbox.js';
import * as verdicts from './2026_11_25_0016_verdicts.js';
import * as inbox from './2026_11_26_0020_inbox.js';
import * as authToolkit from './2026_11_26_0021_auth_toolkit.js';
import * as runDownloads from './2026_11_26_0025_run_downloads.js';
import * as projectFiles from './2026_11_26_0026_project_files.js';
import * as auditLog from './2026_11_27_0030_audit_log.js';
import * as dataKeys from './2026_11_27_0040_data_keys.js';
import * as qualityIssues from './2026_11_27_0050_quality_issues.js';
import * as a11yScans from './2026_11_28_0060_a11y_scans.js';
import * as signInThrottle from './2026_11_28_0065_sign_in_throttle.js';
import * as llmUsage from './2026_11_28_0070_llm_usage.js';
import * as liveFrames from './2026_11_28_0080_live_frames.js';
import * as stepInsertions from './2026_11_29_0090_step_insertions.js';
import * as oneRunningInsertion from './2026_11_30_0101_one_running_insertion.js';
import * as recordingCheck from './2026_12_01_0110_recording_check.js';
import * as discoveries from './2026_12_02_0120_discoveries.js';
import * as discoverySchedules from './2026_12_03_0130_discovery_schedules.js';
import * as discoveryOperated from './2026_12_04_0140_discovery_operated.js';
import * as runTraceId from './2026_12_05_0150_run_trace_id.js';
import * as visualFailures from './2026_12_06_0160_visual_failures.js';
import * as trendIndexes from './2026_12_07_0170_trend_indexes.js';
import * as gitSync from './2026_12_08_0180_git_sync.js';

// Explicit list (no directory scan) so bundlers and tsx see every migration; order is the key order.
export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_foundation': m0001,
  '2026_11_21_0002_runs': m0002,
  '2026_11_21_0003_run_idempotency': m0003,
  '2026_11_23_0004_chats': m0004,
  '2026_11_23_0005_heal_proposals': healProposals,
  '2026_11_23_0006_remote_tunnels': remoteTunnels,
  '2026_11_23_0007_build_uploads': buildUploads,
  '2026_11_23_0008_git_integrations': gitIntegrations,
  '2026_11_23_0009_change_reviews': changeReviews,
  '2026_11_23_0010_merge_request_reviews': mergeRequestReviews,
  '2026_11_23_0011_dashboard': dashboard,
  '2026_11_23_0013_change_notifications': changeNotifications,
  '2026_11_23_0014_catalogue_changes': catalogueChanges,
  '2026_11_23_0015_webhook_outbox': webhookOutbox,
  '2026_11_25_0016_verdicts': verdicts,
  '2026_11_26_0020_inbox': inbox,
  '2026_11_26_0021_auth_toolkit': authToolkit,
  '2026_11_26_0025_run_downloads': runDownloads,
  '2026_11_26_0026_project_files': projectFiles,
  '2026_11_27_0030_audit_log': auditLog,
  '2026_11_27_0040_data_keys': dataKeys,
  '2026_11_27_0050_quality_issues': qualityIssues,
  '2026_11_28_0060_a11y_scans': a11yScans,
  '2026_11_28_0065_sign_in_throttle': signInThrottle,
  '2026_11_28_0070_llm_usage': llmUsage,
  '2026_11_28_0080_live_frames': liveFrames,
  '2026_11_29_0090_step_insertions': stepInsertions,
  '2026_11_30_0101_one_running_insertion': oneRunningInsertion,
  '2026_12_01_0110_recording_check': recordingCheck,
  '2026_12_02_0120_discoveries': discoveries,
  '2026_12_03_0130_discovery_schedules': discoverySchedules,
  '2026_12_04_0140_discovery_operated': discoveryOperated,
  '2026_12_05_0150_run_trace_id': runTraceId,
  '2026_12_06_0160_visual_failures': visualFailures,
  '2026_12_07_0170_trend_indexes': trendIndexes,
  '2026_12_08_0180_git_sync': gitSync,
};
