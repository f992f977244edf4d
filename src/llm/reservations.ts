// What a burn-in agent said it did not check. Models are told to list it in `done`'s `notCovered`, but many write
// it in the summary instead ("the download started; the file itself was not checked"): a test case must not read
// as proof of what its own agent said it did not verify, so such sentences of the summary count too.

const negation = /\b(not|never|unable|cannot|can't|couldn't|could not|did not|didn't|wasn't|weren't|no way to)\b/i;
const checking = /\b(check|checked|checking|verif\w*|confirm\w*|test\w*|assert\w*|inspect\w*|validat\w*)\b/i;

/** The sentences of a `done` summary that say part of the goal was not verified, in order, without duplicates. */
export function summaryReservations(summary: string | undefined): string[] {
  const sentences = (summary ?? '').split(/(?<=[.!?;])\s+/).map((s) =>
    s
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.;]+$/, ''),
  );
  return [...new Set(sentences.filter((s) => negation.test(s) && checking.test(s)))];
}
