// What a mocked activity throws in the workflow tests to fail for good, as the real activities do for a bad
// definition, a missing LLM, a spent budget: Temporal does not retry it, and the workflow reads its `type`.
import { ApplicationFailure } from '@temporalio/common';

export const failureForGood = (message: string, type: string): ApplicationFailure =>
  ApplicationFailure.create({ message, type, nonRetryable: true });
