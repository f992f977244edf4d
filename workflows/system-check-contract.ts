// The systemCheck workflow's contract (workflows/systemCheck.ts): a round trip through Temporal to a worker that
// reads Postgres, echoing the caller's nonce.

export interface SystemCheckInput {
  /** Echoed back, so a caller can tell its own run from another. */
  nonce: string;
}

export interface SystemCheckResult {
  nonce: string;
  databaseOk: boolean;
  workerIdentity: string;
}
