// The insertStep workflow's contract (workflows/insertStep.ts): "insert a step here" (`insert-step:<insertionId>`).
// The request (position, description, the version it was asked of) is a step_insertions row; the workflow carries ids.

export interface InsertStepInput {
  projectId: string;
  testCaseId: string;
  insertionId: string;
}

export interface InsertStepResult {
  status: 'COMPLETED' | 'FAILED';
  /** COMPLETED: the new steps version and how many steps were recorded for the description. */
  version?: number;
  insertedSteps?: number;
  failureReason?: string;
}
