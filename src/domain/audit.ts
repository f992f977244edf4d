// What the audit log records: who did what to a project, and when. The kinds are the decisions an operator
// asks about after an incident (who signed in, who changed a token, an integration, a heal or a quarantine).

export const auditKinds = [
  'sign_in.succeeded',
  'sign_in.failed',
  'token.created',
  'token.revoked',
  'git_integration.created',
  'git_integration.updated',
  'git_integration.deleted',
  'heal_proposal.accepted',
  'heal_proposal.rejected',
  'test_case.steps_edited',
  'test_case.quarantined',
  'test_case.released',
  'project_settings.updated',
] as const;
export type AuditKind = (typeof auditKinds)[number];

export const auditActorTypes = ['token', 'session', 'cli', 'system', 'anonymous'] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

/**
 * Who acted: an API token (its id), a dashboard session (the id of the token that opened it; the session id is
 * a secret held in a cookie, so it never appears here), `proctor admin` from a shell, Proctor itself, or an
 * unauthenticated client (a failed sign-in).
 */
export type AuditActor = { type: 'token' | 'session'; id: string } | { type: 'cli' | 'system' | 'anonymous' };

export const systemActor: AuditActor = { type: 'system' };
export const cliActor: AuditActor = { type: 'cli' };

export interface AuditEvent {
  kind: AuditKind;
  actor: AuditActor;
  /** What the event is about: a token id, an integration short id, a test case id (never a secret). */
  subject: string | null;
  /** Plain facts about the change: names, versions, the fields changed (never their secret values). */
  details: Record<string, unknown>;
  clientAddress: string | null;
  at: Date;
}
