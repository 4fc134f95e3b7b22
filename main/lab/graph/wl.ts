// Weisfeiler-Leman (1-WL, colour refinement) hash of a labelled directed multigraph.
//
// Colour of a node at round 0: a hash of its `type`. At round k+1: a hash of its round-k colour and the
// sorted multiset of (direction, relation, neighbour's round-k colour) over its incident edges, where an
// out-edge and an in-edge of the same relation are different labels. Parallel edges each contribute
// (so a multigraph with two `founded_by` edges differs from one with a single one), and a self-loop
// contributes once as out-edge and once as in-edge. The graph hash is sha256 of the node and edge counts,
// the round count and the sorted multiset of final colours (as little-endian float64 bytes). Names, ids, attrs and meta never enter it.
//
// Guarantee: isomorphic labelled digraphs get equal hashes whatever the ids and order (up to 53-bit
// collisions in the intermediate colours, ~n^2 / 2^53). The converse does NOT hold; known blind spots:
//  - 1-WL cannot tell apart graphs whose nodes all look alike locally: e.g. one directed 6-cycle vs two
//    directed 3-cycles with the same labels, or any two regular graphs of the same degree and size
//    (every node keeps the same colour forever). Strongly regular graphs and CFI-type pairs likewise.
//  - With `iterations` rounds a node sees only its radius-`iterations` neighbourhood: two long paths that
//    differ only in where two labelled nodes sit, farther than 2*iterations apart from each other and
//    from the ends, hash equal. Raise `iterations` (e.g. to the node count) for long subgraphs.
//  - Hashes are comparable only between calls with the same `iterations`.
// For exact questions (are two nodes in the same structural role?) use `orbits`, which is exact.
import { createHash } from 'node:crypto';
import type { GraphIndex, Subgraph } from './graph-index';
import { hashLabel, hashNumbers, hashPair } from './hash';
import { localGraph, type LocalGraph } from './local';

const WL_VERSION = 'sailor-wl/1';

const relCache = new Map<string, { out: number; in: number }>();

/** The arc labels of a relation: an out-edge and an in-edge of one relation are different labels. */
function relationCodes(rel: string): { out: number; in: number } {
  let codes = relCache.get(rel);
  if (!codes) {
    codes = { out: hashLabel(`>${rel}`), in: hashLabel(`<${rel}`) };
    if (relCache.size < 100_000) relCache.set(rel, codes);
  }
  return codes;
}

/** Sorts buf[lo..hi) ascending in place: insertion sort for the usual handful, typed-array sort for hubs. */
function sortRange(buf: Float64Array, lo: number, hi: number): void {
  if (hi - lo > 24) {
    buf.subarray(lo, hi).sort();
    return;
  }
  for (let i = lo + 1; i < hi; i++) {
    const x = buf[i]!;
    let j = i - 1;
    while (j >= lo && buf[j]! > x) {
      buf[j + 1] = buf[j]!;
      j--;
    }
    buf[j + 1] = x;
  }
}

/** Final per-node WL colours of a local graph (53-bit numbers), in local node order. */
export function wlColours(g: LocalGraph, iterations: number): Float64Array {
  const { n, m } = g;
  // Arcs grouped by node: each edge appears at its source (out) and at its target (in).
  const arcStart = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) {
    arcStart[g.src[e]! + 1]!++;
    arcStart[g.dst[e]! + 1]!++;
  }
  for (let v = 0; v < n; v++) arcStart[v + 1]! += arcStart[v]!;
  const fill = arcStart.slice(0, n);
  const arcCode = new Float64Array(2 * m);
  const arcNbr = new Int32Array(2 * m);
  for (let e = 0; e < m; e++) {
    const rel = g.rels[e]!;
    const s = g.src[e]!;
    const t = g.dst[e]!;
    let a = fill[s]!++;
    const codes = relationCodes(rel);
    arcCode[a] = codes.out;
    arcNbr[a] = t;
    a = fill[t]!++;
    arcCode[a] = codes.in;
    arcNbr[a] = s;
  }

  let colour = new Float64Array(n);
  for (let v = 0; v < n; v++) colour[v] = hashLabel(g.types[v]!);
  let next = new Float64Array(n);
  let maxDeg = 0;
  for (let v = 0; v < n; v++) maxDeg = Math.max(maxDeg, arcStart[v + 1]! - arcStart[v]!);
  const buf = new Float64Array(maxDeg + 1);
  for (let round = 0; round < iterations; round++) {
    for (let v = 0; v < n; v++) {
      const lo = arcStart[v]!;
      const k = arcStart[v + 1]! - lo;
      buf[0] = colour[v]!;
      for (let i = 0; i < k; i++) buf[i + 1] = hashPair(arcCode[lo + i]!, colour[arcNbr[lo + i]!]!);
      sortRange(buf, 1, k + 1); // the multiset, order-free
      next[v] = hashNumbers(buf, 0, k + 1);
    }
    [colour, next] = [next, colour];
  }
  return colour;
}

/** Digest of a local graph: sha256 over the sorted final colour multiset (hex, 32 chars = 128 bits). */
export function wlHashLocal(g: LocalGraph, iterations = 3): string {
  if (!Number.isInteger(iterations) || iterations < 0) throw new RangeError(`wlHash: iterations must be a whole number >= 0, got ${iterations}`);
  const colours = wlColours(g, iterations).sort();
  // Colours are integers < 2^53, exact as float64: hash their little-endian bytes (platform-independent).
  const bytes = new DataView(new ArrayBuffer(8 * colours.length));
  for (let i = 0; i < colours.length; i++) bytes.setFloat64(8 * i, colours[i]!, true);
  return createHash('sha256')
    .update(`${WL_VERSION};k=${iterations};n=${g.n};m=${g.m};`)
    .update(new Uint8Array(bytes.buffer))
    .digest('hex')
    .slice(0, 32);
}

/** WL hash of `sub` (or of the whole graph when omitted). See the header for what it can and cannot tell apart. */
export function wlHash(index: GraphIndex, sub?: Subgraph, iterations = 3): string {
  return wlHashLocal(localGraph(index, sub), iterations);
}
