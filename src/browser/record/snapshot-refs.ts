// Short refs for the model. Playwright's refs grow with the page and its navigations (`f3e3020`): several tokens
// each, on every element line, about half of a large page's snapshot. The agent sees them renumbered in the order
// they appear (`e1`, `e2`, …) and its answers are mapped back. An element inside an iframe keeps a frame prefix
// (`f1e3`), so the snapshot still says which frame a control is in. An alias holds for the one observation it was
// made for, which is the only snapshot the model is shown.

const refPattern = /\[ref=([^\]]+)\]/g;

export class UnknownAliasError extends Error {}

export class RefAliases {
  private readonly toReal = new Map<string, string>();
  private readonly toAlias = new Map<string, string>();
  /** Playwright's frame prefix (`f3`, or '' on a first document) to the alias's, and each frame's last number. */
  private readonly frames = new Map<string, { prefix: string; count: number }>();

  /** `text` with every ref replaced by its alias (one alias per real ref, shared by every text given). */
  apply(text: string): string {
    return text.replace(refPattern, (_, real: string) => `[ref=${this.aliasOf(real)}]`);
  }

  private aliasOf(real: string): string {
    let alias = this.toAlias.get(real);
    if (!alias) {
      // The first ref seen is the top document's (the snapshot starts there): its elements get no prefix.
      const framePrefix = /^(f\d+)?e\d+$/.exec(real)?.[1] ?? '';
      let frame = this.frames.get(framePrefix);
      if (!frame)
        this.frames.set(
          framePrefix,
          (frame = { prefix: this.frames.size === 0 ? '' : `f${this.frames.size}`, count: 0 }),
        );
      alias = `${frame.prefix}e${++frame.count}`;
      this.toAlias.set(real, alias);
      this.toReal.set(alias, real);
    }
    return alias;
  }

  /** `text` (an error message) with the refs this observation showed written as the model saw them; others stay. */
  known(text: string): string {
    return text.replace(refPattern, (whole, real: string) =>
      this.toAlias.has(real) ? `[ref=${this.toAlias.get(real)}]` : whole,
    );
  }

  /** Playwright's ref for an alias the model sent; a ref that was never shown is refused, not guessed. */
  resolve(alias: string): string {
    const real = this.toReal.get(alias.trim().replace(/^\[?(ref=)?|\]$/g, ''));
    if (!real)
      throw new UnknownAliasError(`there is no element [ref=${alias}] in the latest snapshot; use a ref from it`);
    return real;
  }

  get size(): number {
    return this.toReal.size;
  }
}
