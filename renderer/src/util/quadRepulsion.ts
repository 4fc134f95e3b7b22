// Repulsion for large graphs (Barnes–Hut): the force layout's k²/d push between nodes closer than 2k, with a
// quadtree summing a far enough group of nodes as one body at its centre of mass. The grid in forceLayout.ts
// visits every pair in neighbouring cells, which is linear only while the nodes stay spread out; a large graph
// pulls its hubs' neighbours into dense clumps where a cell holds hundreds of nodes, and an iteration turns
// quadratic (50000 edges: seconds per iteration). Here a node visits O(log n) groups however dense its clump.
// Pure: reads positions, adds to the force arrays.

/** Bodies per leaf: below this, a leaf's bodies are visited one by one. */
const LEAF = 8;
/** Deeper than this (coincident nodes), a leaf keeps however many bodies it has. */
const MAX_DEPTH = 24;

export interface RepulsionInput {
  x: Float64Array;
  y: Float64Array;
  /** The ideal edge length: the push is k²/d, cut off beyond 2k (as the grid does). */
  k: number;
  /** A group of size s at distance d counts as one body when s < theta·d (0: exact). */
  theta: number;
  /** Jitter for coincident nodes (seeded by the caller). */
  rand: () => number;
}

/** Adds each node's repulsion to `fx`, `fy`. */
export function addRepulsion(inp: RepulsionInput, fx: Float64Array, fy: Float64Array): void {
  const { x, y, k, theta, rand } = inp;
  const n = x.length;
  if (n < 2) return;
  const tree = buildTree(x, y);
  const k2 = k * k;
  const range2 = 4 * k2;
  const th2 = theta * theta;
  const stack = new Int32Array(MAX_DEPTH * 4 + 8);
  for (let i = 0; i < n; i++) {
    const px = x[i]!;
    const py = y[i]!;
    let fxi = 0;
    let fyi = 0;
    let top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const c = stack[--top]!;
      const x0 = tree.x0[c]!;
      const y0 = tree.y0[c]!;
      const s = tree.size[c]!;
      // The whole group out of range: skip it.
      const gx = px < x0 ? x0 - px : px > x0 + s ? px - x0 - s : 0;
      const gy = py < y0 ? y0 - py : py > y0 + s ? py - y0 - s : 0;
      if (gx * gx + gy * gy > range2) continue;
      const child = tree.child[c]!;
      if (child < 0) {
        for (let b = tree.start[c]!; b < tree.end[c]!; b++) {
          const j = tree.order[b]!;
          if (j === i) continue;
          let ddx = px - x[j]!;
          let ddy = py - y[j]!;
          let d2 = ddx * ddx + ddy * ddy;
          if (d2 > range2) continue;
          if (d2 < 0.01) {
            ddx = rand() - 0.5;
            ddy = rand() - 0.5;
            d2 = ddx * ddx + ddy * ddy;
          }
          const f = k2 / d2;
          fxi += ddx * f;
          fyi += ddy * f;
        }
        continue;
      }
      const inside = gx === 0 && gy === 0;
      const ddx = px - tree.cx[c]!;
      const ddy = py - tree.cy[c]!;
      const d2 = ddx * ddx + ddy * ddy;
      if (!inside && s * s < th2 * d2) {
        if (d2 <= range2) {
          const f = (tree.mass[c]! * k2) / d2;
          fxi += ddx * f;
          fyi += ddy * f;
        }
        continue;
      }
      for (let q = 0; q < 4; q++) if (tree.mass[child + q]! > 0) stack[top++] = child + q;
    }
    fx[i] = fx[i]! + fxi;
    fy[i] = fy[i]! + fyi;
  }
}

/** A quadtree in flat arrays: node 0 is the root; a node's four children are consecutive (child[c] .. +3). */
export interface Tree {
  x0: Float64Array;
  y0: Float64Array;
  size: Float64Array;
  cx: Float64Array;
  cy: Float64Array;
  mass: Float64Array;
  child: Int32Array;
  start: Int32Array;
  end: Int32Array;
  /** The bodies, reordered so that each node's are order[start .. end). */
  order: Int32Array;
}

export function buildTree(x: Float64Array, y: Float64Array): Tree {
  const n = x.length;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, x[i]!);
    maxX = Math.max(maxX, x[i]!);
    minY = Math.min(minY, y[i]!);
    maxY = Math.max(maxY, y[i]!);
  }
  const cap = Math.max(16, 4 * Math.ceil(n / 2) + 8);
  let t: Tree = alloc(cap, n);
  let used = 1;
  const quadOf = new Uint8Array(n);
  const scratch = new Int32Array(n);
  for (let i = 0; i < n; i++) t.order[i] = i;
  const grow = (need: number): void => {
    if (need <= t.x0.length) return;
    const bigger = alloc(Math.max(need, t.x0.length * 2), n);
    for (const key of ['x0', 'y0', 'size', 'cx', 'cy', 'mass', 'child', 'start', 'end'] as const) bigger[key].set(t[key]);
    bigger.order.set(t.order);
    t = bigger;
  };
  // Each node's square, then its bodies split into quadrants by a counting sort over order[start .. end).
  const build = (c: number, x0: number, y0: number, size: number, start: number, end: number, depth: number): void => {
    t.x0[c] = x0;
    t.y0[c] = y0;
    t.size[c] = size;
    t.start[c] = start;
    t.end[c] = end;
    let sx = 0;
    let sy = 0;
    for (let b = start; b < end; b++) {
      sx += x[t.order[b]!]!;
      sy += y[t.order[b]!]!;
    }
    const m = end - start;
    t.mass[c] = m;
    t.cx[c] = m > 0 ? sx / m : x0 + size / 2;
    t.cy[c] = m > 0 ? sy / m : y0 + size / 2;
    t.child[c] = -1;
    if (m <= LEAF || depth >= MAX_DEPTH) return;
    const half = size / 2;
    const counts = [0, 0, 0, 0];
    for (let b = start; b < end; b++) {
      const j = t.order[b]!;
      const q = (x[j]! >= x0 + half ? 1 : 0) + (y[j]! >= y0 + half ? 2 : 0);
      quadOf[j] = q;
      counts[q]!++;
    }
    const at = [start, start + counts[0]!, start + counts[0]! + counts[1]!, start + counts[0]! + counts[1]! + counts[2]!];
    const from = [...at];
    for (let b = start; b < end; b++) {
      const j = t.order[b]!;
      scratch[at[quadOf[j]!]!++] = j;
    }
    t.order.set(scratch.subarray(start, end), start);
    grow(used + 4);
    const first = used;
    used += 4;
    t.child[c] = first;
    for (let q = 0; q < 4; q++) {
      build(first + q, x0 + (q & 1 ? half : 0), y0 + (q & 2 ? half : 0), half, from[q]!, from[q]! + counts[q]!, depth + 1);
    }
  };
  const size = Math.max(maxX - minX, maxY - minY, 1e-9) * (1 + 1e-9);
  build(0, minX, minY, size, 0, n, 0);
  return t;
}

function alloc(cap: number, n: number): Tree {
  return {
    x0: new Float64Array(cap),
    y0: new Float64Array(cap),
    size: new Float64Array(cap),
    cx: new Float64Array(cap),
    cy: new Float64Array(cap),
    mass: new Float64Array(cap),
    child: new Int32Array(cap),
    start: new Int32Array(cap),
    end: new Int32Array(cap),
    order: new Int32Array(n),
  };
}
