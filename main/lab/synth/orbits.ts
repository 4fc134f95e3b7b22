// Orbits of a sampled subgraph as answer roles (see docs/pipeline.md, 'Answer orbits'): numbered canonically per
// shape, so `orbit` means the same role in every instance of one shape, and balanced, so every role of a
// shape is the answer about as often as the others.
import { orbits } from '../graph/orbits';
import type { GraphIndex, Subgraph } from '../graph/graph-index';
import { localGraph } from '../graph/local';
import { wlColours } from '../graph/wl';
import type { Rng } from '../util/rng';

/** Orbits of `sub` in a canonical order for its shape: by the members' WL colour, then size. */
export function canonicalOrbits(index: GraphIndex, sub: Subgraph): string[][] {
  const local = localGraph(index, sub);
  const colours = wlColours(local, Math.max(3, local.n));
  const colourOf = new Map(local.ids.map((id, i) => [id, colours[i]!]));
  return orbits(index, sub)
    .map((o) => ({ o, key: colourOf.get(o[0]!)! }))
    .sort((a, b) => a.key - b.key || a.o.length - b.o.length)
    .map((x) => x.o);
}

/** Per-(hash, orbit) answer counters; `choose` returns a least used orbit (random among ties). */
export class OrbitBalancer {
  private readonly counts = new Map<string, number[]>();

  countsOf(hash: string, orbitCount: number): number[] {
    let c = this.counts.get(hash);
    if (!c) this.counts.set(hash, (c = []));
    while (c.length < orbitCount) c.push(0);
    return c;
  }

  choose(hash: string, orbitCount: number, rng: Rng): number {
    const c = this.countsOf(hash, orbitCount).slice(0, orbitCount);
    const min = Math.min(...c);
    const ties = c.flatMap((n, i) => (n === min ? [i] : []));
    return rng.pick(ties);
  }

  record(hash: string, orbit: number): void {
    const c = this.countsOf(hash, orbit + 1);
    c[orbit]!++;
  }

  /** Shapes seen, their orbits, and how many of those orbits have at least one QA. */
  coverage(): { hashes: number; orbits: number; covered: number } {
    let orbitsTotal = 0;
    let covered = 0;
    for (const c of this.counts.values()) {
      orbitsTotal += c.length;
      covered += c.filter((n) => n > 0).length;
    }
    return { hashes: this.counts.size, orbits: orbitsTotal, covered };
  }
}
