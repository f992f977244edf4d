/** The innermost message of a (nested) failure: what a user reads as the reason, not the wrapper's "Activity task failed". */
export function innermostMessage(err: unknown): string {
  let current = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
