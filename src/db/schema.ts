import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { ChatMessageStatus } from '../domain/chat.js';
import type { FailureEvidence, FailureKind, StepChange } from '../domain/verdicts.js';
import type { RunDownload } from '../domain/step-events.js';
import type { RecordingCheck } from '../domain/recording-check.js';
import type { IssueStatus, Severity, SignalCounts, SignalKind } from '../domain/quality.js';
import type { DiscoveryBudget } from '../domain/discovery.js';
import type { DiscoveryStatus, DiscoveryStopReason, SuggestionStatus } from '../domain/discovery-run.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface OrganizationsTable {
  id: string;
  name: string;
  suspended_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  default_test_plan_id: string | null;
  heal_policy: Generated<'auto' | 'review'>;
  /** Automatic retries of a failed test in a run (0–3). */
  test_retries: Generated<number>;
  /** Quarantine rule: flake rate at or above this over at least `quarantine_min_runs` runs; null is off. */
  quarantine_flake_rate: number | null;
  quarantine_min_runs: Generated<number>;
  /** Clean runs of the tests that saw an issue after which it resolves itself. */
  issue_resolve_after_runs: Generated<number>;
  /** Request URL patterns whose failures are not quality signals. */
  signal_ignore_urls: ColumnType<string[], string | undefined, string>;
  created_at: Timestamp;
}

export type TokenKind = 'api' | 'badge';

export interface ApiTokensTable {
  id: string;
  project_id: string;
  kind: TokenKind;
  name: string;
  prefix: string;
  token_hash: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export type ApplicationKind = 'web' | 'ios' | 'android';

export interface ApplicationsTable {
  id: string;
  short_id: string;
  project_id: string;
  name: string;
  kind: ApplicationKind;
  default_environment_id: string | null;
  default_device_preset_id: string | null;
  created_at: Timestamp;
}

export interface ApplicationBuildsTable {
  id: string;
  short_id: string;
  project_id: string;
  application_id: string;
  platform: 'ios' | 'android';
  file_name: string;
  file_size_bytes: ColumnType<string, number | string, number | string>;
  blob_key: string;
  created_at: Timestamp;
}

export interface BuildUploadsTable {
  id: string;
  project_id: string;
  application_id: string;
  token_hash: string;
  file_name: string;
  file_type: string;
  blob_key: string;
  max_bytes: ColumnType<string, number | string, number | string>;
  expires_at: Date;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface EnvironmentsTable {
  id: string;
  short_id: string;
  project_id: string;
  application_id: string;
  name: string;
  url: string | null;
  application_build_id: string | null;
  is_production: Generated<boolean>;
  /** Basic auth, extra headers and preset cookies for every browser context and http_request (EnvironmentAccess). */
  access: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface DevicePresetsTable {
  id: string;
  short_id: string;
  project_id: string;
  name: string;
  viewport_width: number;
  viewport_height: number;
  device_scale_factor: Generated<number>;
  is_mobile: Generated<boolean>;
  has_touch: Generated<boolean>;
  user_agent: string | null;
  locale: string | null;
  timezone_id: string | null;
  created_at: Timestamp;
}

export interface ConfigsTable {
  id: string;
  short_id: string;
  project_id: string;
  name: string;
  value: string;
  is_secret: Generated<boolean>;
  /** `totp`: an otpauth URI or base32 seed, always secret, typed as the current code. */
  type: Generated<'plain' | 'totp'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ScenariosTable {
  id: string;
  short_id: string;
  project_id: string;
  name: string;
  description: string | null;
  instructions: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type GenerationStatus = 'GENERATING' | 'COMPLETED' | 'FAILED';

export interface TestCasesTable {
  id: string;
  project_id: string;
  application_id: string;
  name: string;
  goal: string | null;
  expected_result: string | null;
  is_enabled: Generated<boolean>;
  labels: ColumnType<string[], string[] | undefined, string[]>;
  classification: Generated<string>;
  generation_status: Generated<GenerationStatus>;
  failure_reason: string | null;
  scenario_id: string | null;
  config_ids: ColumnType<string[], string[] | undefined, string[]>;
  resume_from_test_case_id: string | null;
  wait_for_test_case_ids: ColumnType<string[], string[] | undefined, string[]>;
  steps: ColumnType<unknown, string | null | undefined, string | null>;
  steps_version: Generated<number>;
  /** Set by hand: the test still runs and reports, but fails neither a run nor a review. */
  quarantined: Generated<boolean>;
  /** What the burn-in agent said it did not check (string[]): a review does not count it as tested. */
  not_covered: ColumnType<string[] | null, string | null | undefined, string | null>;
  /** The verifying replay of its burn-in (RecordingCheck, src/domain/recording-check.ts); null before it existed. */
  recording_check: ColumnType<RecordingCheck | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TestPlansTable {
  id: string;
  short_id: string;
  project_id: string;
  name: string;
  description: string | null;
  owner: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TestPlanTestCasesTable {
  test_plan_id: string;
  test_case_id: string;
  position: number;
}

export interface TestPlanApplicationsTable {
  test_plan_id: string;
  application_id: string;
  environment_id: string;
  device_preset_id: string | null;
}

export type NotifyOn = 'failure' | 'always';

export interface TestPlanNotificationsTable {
  id: string;
  test_plan_id: string;
  channel: 'email' | 'slack';
  target: string;
  slack_channel: string | null;
  notify_on: NotifyOn;
}

export type RunStatus = 'INITIATED' | 'RUNNING' | 'COMPLETED' | 'ERROR' | 'CANCELLED';
export type TestResult = 'PASSED' | 'FAILED' | 'SKIPPED';
export type RunTestStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'SKIPPED' | 'ERROR' | 'CANCELLED';

export interface RunsTable {
  id: string;
  short_id: string;
  project_id: string;
  test_plan_id: string | null;
  rerun_of_run_id: string | null;
  status: Generated<RunStatus>;
  result: TestResult | null;
  error: string | null;
  trigger: Generated<string>;
  actor: string | null;
  branch: string | null;
  commit_hash: string | null;
  commit_message: string | null;
  repository: string | null;
  notifications: ColumnType<unknown, string | null | undefined, string | null>;
  test_count: Generated<number>;
  idempotency_key: string | null;
  /** The trace the run was started in (tracing on), W3C hex. */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export interface RunTestCasesTable {
  id: string;
  run_id: string;
  test_case_id: string | null;
  name: string;
  goal: string | null;
  application_id: string;
  environment_url: string | null;
  application_build_id: ColumnType<string | null, string | null | undefined, string | null>;
  device: ColumnType<unknown, string | null | undefined, string | null>;
  resume_from_test_case_id: string | null;
  wait_for_test_case_ids: ColumnType<string[], string[] | undefined, string[]>;
  in_plan: Generated<boolean>;
  status: Generated<RunTestStatus>;
  result: TestResult | null;
  result_title: string | null;
  error: string | null;
  failed_step_index: number | null;
  healed: ColumnType<unknown, string | null | undefined, string | null>;
  screenshot_key: string | null;
  trace_key: string | null;
  duration_ms: number | null;
  /** StepChange[] (src/domain/verdicts.ts): how the elements the replay touched differ from the recorded ones. */
  changes: ColumnType<StepChange[] | null, string | null | undefined, string | null>;
  failure_kind: FailureKind | null;
  /** FailureEvidence (src/domain/verdicts.ts). */
  evidence: ColumnType<FailureEvidence | null, string | null | undefined, string | null>;
  /** Executions of the test in this run: 1 plus the retries it needed. */
  attempts: Generated<number>;
  /** Passed on a retry after failing. */
  flaky: Generated<boolean>;
  /** Quarantined when it ran: reported apart, fails neither the run nor a review. */
  quarantined: Generated<boolean>;
  /** RunDownload[] (src/domain/step-events.ts): the files its steps downloaded, kept in the blob store. */
  downloads: ColumnType<RunDownload[] | null, string | null | undefined, string | null>;
  /** SignalCounts (src/domain/quality.ts): the quality signals the test's replay saw, per kind. */
  signal_counts: ColumnType<SignalCounts | null, string | null | undefined, string | null>;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export interface TestPlanSchedulesTable {
  id: string;
  test_plan_id: string;
  cron: string;
  description: string | null;
  temporal_schedule_id: string;
  created_at: Timestamp;
}

export type { ChatMessageStatus };

export interface ChatsTable {
  id: string;
  short_id: string;
  project_id: string;
  title: string | null;
  source: 'api' | 'ui' | 'github' | 'gitlab' | 'system';
  application_overrides: ColumnType<unknown, string | undefined, string>;
  turn_count: Generated<number>;
  idempotency_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatMessagesTable {
  id: string;
  seq: Generated<string>;
  chat_id: string;
  turn: number;
  role: 'user' | 'assistant';
  text: Generated<string>;
  status: ChatMessageStatus | null;
  is_streaming: Generated<boolean>;
  tools_used: ColumnType<string[], string[] | undefined, string[]>;
  idempotency_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChatRunsTable {
  chat_id: string;
  run_id: string;
  created_at: Timestamp;
}

export type ChangeReviewState = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface ChangeReviewsTable {
  id: string;
  chat_id: string;
  project_id: string;
  assistant_message_id: string;
  mode: 'pr' | 'rawChanges';
  source: 'api' | 'github' | 'gitlab';
  provider: 'github' | 'gitlab' | null;
  pr_url: string | null;
  change_description: string | null;
  diff: string | null;
  context: string | null;
  application_overrides: ColumnType<unknown, string | undefined, string>;
  metadata: ColumnType<unknown, string | undefined, string>;
  change: ColumnType<unknown, string | null | undefined, string | null>;
  state: Generated<ChangeReviewState>;
  phase: string | null;
  run_id: string | null;
  verdict: 'Approved' | 'Changes Requested' | 'Comment' | null;
  summary: string | null;
  tests: ColumnType<unknown, string | undefined, string>;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: NullableTimestamp;
}

export type HealProposalStatus = 'PENDING' | 'ACCEPTED' | 'REJECTED' | 'SUPERSEDED';

export interface HealProposalsTable {
  id: string;
  project_id: string;
  test_case_id: string;
  based_on_version: number;
  version: number;
  steps: ColumnType<unknown, string, string>;
  healed: ColumnType<unknown, string, string>;
  status: Generated<HealProposalStatus>;
  created_at: Timestamp;
  decided_at: NullableTimestamp;
}

export interface TunnelPort {
  localPort: number;
  protocol: 'http' | 'https';
  subdomain: string;
}

export interface RemoteTunnelsTable {
  id: string;
  runner_id: string;
  label: string;
  project_id: string;
  ports: ColumnType<TunnelPort[], string, string>;
  public: boolean;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface RemoteTunnelConnectionsTable {
  id: string;
  tunnel_id: string;
  edge_url: string;
  connected_at: Timestamp;
  heartbeat_at: Timestamp;
}

export interface MergeRequestReviewSettingsTable {
  id: string;
  project_id: string;
  provider: 'github' | 'gitlab';
  repository: string;
  review_context: ColumnType<string | null, string | null | undefined, string | null>;
  auto_run: Generated<boolean>;
  include_drafts: Generated<boolean>;
  comment_on_open: Generated<boolean>;
  environment_mapping: ColumnType<Record<string, string>, string | undefined, string>;
  handle: Generated<string>;
  webhook_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface GitSyncSettingsTable {
  project_id: string;
  provider: 'github' | 'gitlab';
  repository: string;
  folder: string;
  branch: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type GitSyncFileState = 'in_sync' | 'pull_request' | 'conflict' | 'removed' | 'invalid';

export interface GitSyncFilesTable {
  project_id: string;
  path: string;
  test_case_id: string | null;
  base_text: string | null;
  state: GitSyncFileState;
  reason: string | null;
  ours_text: string | null;
  theirs_text: string | null;
  pull_request_number: number | null;
  pull_request_url: string | null;
  updated_at: Timestamp;
}

export interface GitIntegrationsTable {
  id: string;
  short_id: string;
  project_id: string;
  provider: 'github' | 'gitlab';
  auth: 'app' | 'token';
  app_id: string | null;
  private_key: string | null;
  token: string | null;
  webhook_secret: string | null;
  base_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  provider: string;
  delivery_id: string;
  event: string;
  project_id: string | null;
  received_at: Timestamp;
  processed_at: NullableTimestamp;
  /** JSON: the signals the delivery is to send (`PendingSignal[]`); null until they are known. */
  signals: ColumnType<unknown, string | null | undefined, string | null>;
  attempts: Generated<number>;
  last_error: string | null;
}

export interface MergeRequestsTable {
  provider: string;
  repository: string;
  number: number;
  project_id: string;
  head_sha: string;
  state: string;
  updated_at: Timestamp;
}

export interface MergeRequestDeploymentsTable {
  provider: string;
  repository: string;
  sha: string;
  environment: string;
  url: string;
  created_at: Timestamp;
}

export interface MergeRequestCommentsTable {
  key: string;
  comment_id: string;
  created_at: Timestamp;
}

/** A data key of the secrets' envelope encryption, wrapped by the master key named by `master_key_id`. */
export interface DataKeysTable {
  id: string;
  wrapped: string;
  master_key_id: string;
  created_at: Generated<Date>;
}

export interface DashboardSigningKeysTable {
  id: Generated<number>;
  secret: string;
  created_at: Timestamp;
}

export interface DashboardSessionsTable {
  id_hash: string;
  token_id: string;
  project_id: string;
  csrf_secret: string;
  created_at: Timestamp;
  expires_at: Date;
}

/** An address Proctor's SMTP server accepts mail for, and the project that reads it. */
export interface InboxAddressesTable {
  address: string;
  project_id: string;
  created_at: Timestamp;
}

/** A file a project uploaded for its tests' file inputs; the bytes are the blob at `blob_key`. */
export interface ProjectFilesTable {
  project_id: string;
  name: string;
  size_bytes: number;
  /** Read from the bytes (`pdf`, `png`...), as downloads are checked. */
  type: string;
  mime_type: string;
  blob_key: string;
  created_at: Timestamp;
}

/** A received mail's metadata; its bodies are a JSON blob at `blob_key`. */
export interface InboxMessagesTable {
  id: string;
  project_id: string;
  to_address: string;
  from_address: string;
  subject: string;
  size_bytes: number;
  blob_key: string;
  received_at: Timestamp;
  expires_at: Timestamp;
}

export interface AuditEventsTable {
  id: string;
  /** Null for a failed sign-in with a token nobody issued. */
  project_id: string | null;
  kind: string;
  actor_type: string;
  actor_id: string | null;
  subject: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  client_address: string | null;
  created_at: Timestamp;
}

/** A quality signal one test saw (src/domain/quality.ts), with the run test case or (burn-in) the test case. */
export interface QualitySignalsTable {
  id: string;
  project_id: string;
  run_test_case_id: string | null;
  test_case_id: string | null;
  fingerprint: string;
  kind: SignalKind;
  severity: Severity;
  message: string;
  rule: string | null;
  target: string | null;
  url: string;
  page: string;
  step_index: number;
  /** The burn-in execution (workflow and run id) whose signal this is; null for a replay's. */
  burn_in: string | null;
  created_at: Timestamp;
}

/** The axe-core findings of a document a project's tests visited, by its digest (reused instead of a new scan). */
export interface A11yScansTable {
  project_id: string;
  digest: string;
  findings: ColumnType<unknown, string, string>;
  scanned_at: Timestamp;
}

/** A project issue: the signals of one fingerprint, deduplicated across runs. */
export interface IssuesTable {
  id: string;
  project_id: string;
  fingerprint: string;
  kind: SignalKind;
  severity: Severity;
  title: string;
  rule: string | null;
  page: string;
  sample_url: string;
  status: Generated<IssueStatus>;
  occurrences: Generated<number>;
  /** Passing runs of the tests that saw it, without it, since it was last seen. */
  clean_runs: Generated<number>;
  pages: ColumnType<string[], string | undefined, string>;
  test_case_ids: ColumnType<string[], string | undefined, string>;
  /** Where it was filed: `{ provider, url }`. */
  exported: ColumnType<{ provider: string; url: string } | null, string | null | undefined, string | null>;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  resolved_at: NullableTimestamp;
}

/** The live view of a burn-in or a running test: its latest screencast frame and steps so far (deleted at the end). */
export interface LiveFramesTable {
  kind: 'burn_in' | 'run_test';
  /** The test case (burn_in) or the run's test (run_test). */
  subject_id: string;
  project_id: string;
  frame: Buffer | null;
  frame_url: string | null;
  frame_seq: Generated<number>;
  /** LiveStep[] (src/services/live-view.ts). */
  steps: ColumnType<unknown, string | undefined, string>;
  watched_at: NullableTimestamp;
  started_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One LLM call (src/domain/llm-usage.ts): its tokens and the work it served. */
export interface LlmUsageTable {
  id: string;
  project_id: string;
  purpose: 'burn_in' | 'heal' | 'chat' | 'review';
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  estimated: boolean;
  cost_usd: number | null;
  test_case_id: string | null;
  run_id: string | null;
  run_test_case_id: string | null;
  chat_id: string | null;
  chat_message_id: string | null;
  change_review_id: string | null;
  created_at: Timestamp;
}

export interface LlmBudgetsTable {
  project_id: string;
  daily_tokens: ColumnType<string | number | null, number | null, number | null>;
  daily_usd: number | null;
  updated_at: Timestamp;
}

/** A person's "insert a step here" request and where it is (migration 2026_11_29_0090). */
export interface StepInsertionsTable {
  id: string;
  project_id: string;
  test_case_id: string;
  /** 0-based: the recorded steps go before the step now at this index (the length: at the end). */
  position: number;
  description: string;
  based_on_version: number;
  status: Generated<'RUNNING' | 'COMPLETED' | 'FAILED'>;
  failure_reason: string | null;
  /** COMPLETED: the steps version the insertion was saved as. */
  version: number | null;
  inserted_steps: number | null;
  /** AuditActor (src/domain/audit.ts): who asked, for the steps-edited audit entry. */
  actor: ColumnType<unknown, string, string>;
  created_at: Generated<Date>;
  finished_at: Date | null;
}

/** A discovery: an exploration of an application (migration 2026_12_02_0120, issue 34). */
export interface DiscoveriesTable {
  id: string;
  short_id: string;
  project_id: string;
  application_id: string;
  environment_id: string | null;
  /** The environment's URL when the discovery was asked for: where it starts. */
  start_url: string;
  status: Generated<DiscoveryStatus>;
  budget: ColumnType<DiscoveryBudget, string, string>;
  intent: string | null;
  resume_from_test_case_id: string | null;
  /** Pages visited and controls operated so far. */
  pages: Generated<number>;
  actions: Generated<number>;
  stop_reason: DiscoveryStopReason | null;
  error: string | null;
  workflow_id: string;
  created_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A cron schedule of discoveries of an application (migration 2026_12_03_0130, issue 34). */
export interface DiscoverySchedulesTable {
  id: string;
  project_id: string;
  application_id: string;
  /** Null: the application's default environment at each tick. */
  environment_id: string | null;
  cron: string;
  description: string | null;
  /** Budget limits given (the rest default at each tick), null for none. */
  budget: ColumnType<Partial<DiscoveryBudget> | null, string | null, string | null>;
  intent: string | null;
  /** DiscoveryNotify (src/domain/discovery-news.ts). */
  notify: ColumnType<unknown, string, string>;
  temporal_schedule_id: string;
  created_at: Generated<Date>;
}

/** One visited URL of a discovery (src/domain/discovery.ts `VisitedPage`); unique per discovery and URL. */
export interface DiscoveryPagesTable {
  id: string;
  discovery_id: string;
  url: string;
  final_url: string;
  pattern: string;
  status: number;
  title: string;
  headings: ColumnType<string[], string, string>;
  forms: ColumnType<unknown, string, string>;
  actions: ColumnType<unknown, string, string>;
  links: ColumnType<string[], string, string>;
  actions_used: Generated<number>;
  /** What the visit operated (`role|name`, `search|<form key>`): later visits of the discovery skip these. */
  operated: ColumnType<string[], string | undefined, string>;
  error: string | null;
  visited_at: Generated<Date>;
}

/** A test suggested from a discovery's map; rejected fingerprints are not proposed again in the project. */
export interface DiscoverySuggestionsTable {
  id: string;
  discovery_id: string;
  project_id: string;
  name: string;
  goal: string;
  expected_result: string;
  start_url: string;
  /** SuggestionCovers (src/domain/discovery-run.ts). */
  covers: ColumnType<unknown, string, string>;
  reason: string;
  rank: number;
  status: Generated<SuggestionStatus>;
  test_case_id: string | null;
  fingerprint: string;
  created_at: Generated<Date>;
  decided_at: Date | null;
}

export interface Database {
  a11y_scans: A11yScansTable;
  quality_signals: QualitySignalsTable;
  issues: IssuesTable;
  organizations: OrganizationsTable;
  projects: ProjectsTable;
  api_tokens: ApiTokensTable;
  data_keys: DataKeysTable;
  applications: ApplicationsTable;
  application_builds: ApplicationBuildsTable;
  build_uploads: BuildUploadsTable;
  environments: EnvironmentsTable;
  device_presets: DevicePresetsTable;
  configs: ConfigsTable;
  scenarios: ScenariosTable;
  test_cases: TestCasesTable;
  test_plans: TestPlansTable;
  test_plan_test_cases: TestPlanTestCasesTable;
  test_plan_applications: TestPlanApplicationsTable;
  test_plan_notifications: TestPlanNotificationsTable;
  runs: RunsTable;
  run_test_cases: RunTestCasesTable;
  test_plan_schedules: TestPlanSchedulesTable;
  chats: ChatsTable;
  chat_messages: ChatMessagesTable;
  chat_runs: ChatRunsTable;
  change_reviews: ChangeReviewsTable;
  heal_proposals: HealProposalsTable;
  remote_tunnels: RemoteTunnelsTable;
  remote_tunnel_connections: RemoteTunnelConnectionsTable;
  merge_request_review_settings: MergeRequestReviewSettingsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  merge_requests: MergeRequestsTable;
  merge_request_deployments: MergeRequestDeploymentsTable;
  merge_request_comments: MergeRequestCommentsTable;
  git_integrations: GitIntegrationsTable;
  git_sync_settings: GitSyncSettingsTable;
  git_sync_files: GitSyncFilesTable;
  dashboard_signing_keys: DashboardSigningKeysTable;
  dashboard_sessions: DashboardSessionsTable;
  inbox_addresses: InboxAddressesTable;
  project_files: ProjectFilesTable;
  inbox_messages: InboxMessagesTable;
  audit_events: AuditEventsTable;
  llm_usage: LlmUsageTable;
  live_frames: LiveFramesTable;
  llm_budgets: LlmBudgetsTable;
  step_insertions: StepInsertionsTable;
  discoveries: DiscoveriesTable;
  discovery_schedules: DiscoverySchedulesTable;
  discovery_pages: DiscoveryPagesTable;
  discovery_suggestions: DiscoverySuggestionsTable;
}

export type Application = Selectable<ApplicationsTable>;
export type NewApplication = Insertable<ApplicationsTable>;
export type ApplicationUpdate = Updateable<ApplicationsTable>;
export type Environment = Selectable<EnvironmentsTable>;
export type DevicePreset = Selectable<DevicePresetsTable>;
export type ConfigRow = Selectable<ConfigsTable>;
export type Scenario = Selectable<ScenariosTable>;
export type TestPlan = Selectable<TestPlansTable>;
export type TestCase = Selectable<TestCasesTable>;
