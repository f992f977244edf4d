// The plan benches' dependency graph (bench/plan-run.ts, bench/observability.ts): N tests in `depth` layers of
// N/depth; every test of a layer after the first waits for 1-2 tests of the layer before, every 4th of them
// resumes from one. Deterministic: the same size gives the same graph on every run.

export interface BenchTest {
  name: string;
  layer: number;
  resumeFrom?: string;
  waitFor: string[];
}

export function buildPlanDag(n: number, depth: number): BenchTest[] {
  let seed = 20261121;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const layers: BenchTest[][] = [];
  for (let k = 0; k < depth; k++) {
    const size = Math.floor(n / depth) + (k < n % depth ? 1 : 0);
    layers.push(
      Array.from({ length: size }, (_, i) => {
        const name = `L${k}-${String(i).padStart(4, '0')}`;
        if (k === 0) return { name, layer: k, waitFor: [] };
        const previous = layers[k - 1]!;
        const picks = new Set([previous[Math.floor(random() * previous.length)]!.name]);
        if (random() < 0.5 && previous.length > 1)
          while (picks.size < 2) picks.add(previous[Math.floor(random() * previous.length)]!.name);
        const [first, ...rest] = [...picks];
        // Every 4th test of a layer resumes from its first dependency (which then captures its browser state).
        return i % 4 === 0
          ? { name, layer: k, resumeFrom: first!, waitFor: rest }
          : { name, layer: k, waitFor: [first!, ...rest] };
      }),
    );
  }
  return layers.flat();
}

export const depsOf = (t: BenchTest): string[] => [...(t.resumeFrom ? [t.resumeFrom] : []), ...t.waitFor];
