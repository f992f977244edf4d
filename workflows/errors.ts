import { ActivityFailure } from '@temporalio/workflow';

/** The innermost message of a (nested) failure: what a user reads as the reason, not the wrapper's "Activity task failed". */
export function innermostMessage(err: unknown): string {
  let current = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

/** The activity's own message, not the wrapper's "Activity task failed". */
export function reasonOf(err: unknown): string {
  return err instanceof ActivityFailure && err.cause ? err.cause.message : innermostMessage(err);
}
