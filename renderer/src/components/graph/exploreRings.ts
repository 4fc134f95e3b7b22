// The explore view's rings (issue 45, part 2, point 6). A node's neighbours on one circle put a hub's hundred
// neighbours so far apart that the fitted view is too small for any label to be drawn (the walk: France's 131
// neighbours at zoom 0.2, labels 2 px on screen). Here each BFS depth is split into rings that hold more the
// further out they are (a ring's circumference grows with its radius), the best-connected nearest the centre:
// the same nodes fit in about a third of the width, at a zoom where labels are drawn.

/** Nodes on the k-th ring from the centre (k ≥ 1): k times this many. */
export const RING_CAPACITY = 8;

export interface RingNode {
  id: string;
  /** Hops from the explored root (Infinity when unreached). */
  depth: number;
  degree: number;
}

/**
 * Each node's ring: 0 for the root, then 1, 2, … outward. A depth's nodes fill rings best-connected first (ties by
 * id, so the same graph lays out the same way); each depth starts a ring of its own.
 */
export function exploreRings(nodes: readonly RingNode[], perRing = RING_CAPACITY): Map<string, number> {
  const sorted = [...nodes].sort((a, b) => a.depth - b.depth || b.degree - a.degree || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ring = new Map<string, number>();
  let current = 0;
  let used = 0;
  let depth = 0;
  for (const n of sorted) {
    if (n.depth === 0) {
      ring.set(n.id, 0);
      continue;
    }
    if (current === 0 || n.depth !== depth || used >= perRing * current) {
      current++;
      used = 0;
      depth = n.depth;
    }
    ring.set(n.id, current);
    used++;
  }
  return ring;
}
