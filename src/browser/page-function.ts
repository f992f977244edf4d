// Write a function Proctor sends into a browser page with `pageFunction`, as JavaScript in a string.
//
// Why: Playwright sends a function to the page as its source text (Function.prototype.toString) and runs it there,
// far from this module's scope. Whatever compiles our TypeScript may put references to its own helpers into that
// text. tsx (what `npm run dev` and the Docker image run) wraps every named inner function in esbuild's
// `__name(...)`, which the page does not have: the page throws `ReferenceError: __name is not defined`, and callers
// that tolerate page errors hide it (a failure message then never says what the page showed). A coverage tool's
// counters would break it the same way. Vitest's transform adds no such helper, so tests under vitest never see it.
// A string is never transformed: the page runs exactly what is written. test/unit/page-functions.test.ts runs the
// page functions under tsx.

/** A function built from `source` (a JavaScript function expression), typed as `F`; its text is `source`. */
export function pageFunction<F extends (...args: never[]) => unknown>(source: string): F {
  // Only ever a constant of this repository, never input.
  return new Function(`return (${source});`)() as F;
}

/** Whether a page element is `other` (passed as an element handle): the same node, not merely alike. */
export const isElement = pageFunction<(el: Element, other: unknown) => boolean>('(el, other) => el === other');

/** The index of `target` (an element handle) among the matched elements, -1 when it is not one of them. */
export const indexOfElement = pageFunction<(els: Element[], target: unknown) => number>(
  '(els, target) => els.indexOf(target)',
);
