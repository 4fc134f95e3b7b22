// A force-directed layout for the Graph explorer (Fruchterman–Reingold with grid-cell repulsion).
// Cytoscape's `cose` computes every node pair on every iteration, and blocks the window while it runs.
// Here repulsion only looks at the neighbouring grid cells, so an iteration is linear in the graph size,
// and the iterations run in short slices between frames. Seeded: the same graph gets the same picture
// every time it is opened.
// Measured in Chromium on 2 cores against cytoscape's own layouts (cose, and the cytoscape-fcose
// extension), on graphs the app builds (rng 7): 167 nodes / 400 edges: ours 76 ms, cose 0.86 s, fcose
// 0.44 s; 773 / 2,000: ours 0.34 s, cose 14 s, fcose 3.4 s; 6,607 / 12,000 (the quick preset): ours
// 5.6 s, fcose 463 s, cose not run (quadratic per iteration: some 15 min from its 773-node time).
// The pictures are alike (fcose spreads the small graph most evenly); only ours keeps the window
// responsive, so it stays.
// Above QUADTREE_NODES nodes the same repulsion goes through a quadtree (util/quadRepulsion.ts): large graphs
// pull hubs' neighbours into clumps where the grid's cells hold hundreds of nodes. In Node on the shared
// 2-core machine (bench/speed/graph-layout.ts): 32,356 nodes / 50,000 edges, grid 83 s, quadtree 55 s.

import { addRepulsion } from './quadRepulsion';
import type { LayoutMessage } from './forceLayout.worker';

/**
 * Above this many nodes, repulsion goes through a quadtree (util/quadRepulsion.ts): the grid turns quadratic in
 * dense clumps. Not lower: on the quick preset's 6,607 nodes the quadtree's approximation packs clumps into a
 * visible square lattice, and there the grid is about as fast (14 s against 13 s).
 */
export const QUADTREE_NODES = 10_000;
/** Above this many nodes the layout runs in a Web Worker: one iteration outlasts a frame. */
export const WORKER_NODES = 2000;
/** Barnes–Hut opening angle: a group counts as one body when its size is under THETA × its distance. */
const THETA = 0.8;

export interface Position {
  x: number;
  y: number;
}

export interface LayoutInput {
  ids: string[];
  edges: Array<[string, string]>;
  /** Seed for the start positions (e.g. the graph id). */
  seed: string;
  /** Ideal edge length in model units (the canvas fits afterwards). */
  k?: number;
  iterations?: number;
  /** How repulsion is computed; by default the grid up to QUADTREE_NODES nodes, the quadtree above. */
  repulsion?: 'grid' | 'quadtree';
}

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ForceLayout {
  /** Runs one iteration; false once the layout has cooled. */
  step(): boolean;
  readonly progress: number;
  positions(): Map<string, Position>;
}

export function createForceLayout(input: LayoutInput): ForceLayout {
  const n = input.ids.length;
  const k = input.k ?? 60;
  const iterations = input.iterations ?? (n > 1000 ? 260 : 360);
  const index = new Map(input.ids.map((id, i) => [id, i]));
  const es: number[] = [];
  for (const [s, t] of input.edges) {
    const a = index.get(s);
    const b = index.get(t);
    if (a !== undefined && b !== undefined && a !== b) es.push(a, b);
  }
  const rand = mulberry32(hashSeed(input.seed));
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const dx = new Float64Array(n);
  const dy = new Float64Array(n);
  const radius = k * Math.sqrt(n) * 0.6;
  for (let i = 0; i < n; i++) {
    const r = radius * Math.sqrt(rand());
    const a = rand() * 2 * Math.PI;
    x[i] = r * Math.cos(a);
    y[i] = r * Math.sin(a);
  }
  const k2 = k * k;
  const cell = 2 * k;
  const gravity = 0.015;
  let temp = radius * 0.5;
  const cool = Math.pow(1 / Math.max(1, temp), 1 / iterations); // ends at ~1 unit of movement
  let it = 0;
  const grid = new Map<number, number[]>();
  const key = (cx: number, cy: number): number => cx * 73856093 + cy * 19349663;
  const quad = (input.repulsion ?? (n > QUADTREE_NODES ? 'quadtree' : 'grid')) === 'quadtree';

  function step(): boolean {
    if (it >= iterations) return false;
    dx.fill(0);
    dy.fill(0);
    if (quad) addRepulsion({ x, y, k, theta: THETA, rand }, dx, dy);
    else gridRepulsion();
    attract();
    move();
    temp *= cool;
    it++;
    return it < iterations;
  }

  function gridRepulsion(): void {
    grid.clear();
    for (let i = 0; i < n; i++) {
      const kk = key(Math.floor(x[i]! / cell), Math.floor(y[i]! / cell));
      const bucket = grid.get(kk);
      if (bucket) bucket.push(i);
      else grid.set(kk, [i]);
    }
    // Repulsion k²/d between nodes in the same or adjacent cells (each pair once).
    for (let i = 0; i < n; i++) {
      const cx = Math.floor(x[i]! / cell);
      const cy = Math.floor(y[i]! / cell);
      for (let ox = -1; ox <= 1; ox++) {
        for (let oy = -1; oy <= 1; oy++) {
          const bucket = grid.get(key(cx + ox, cy + oy));
          if (!bucket) continue;
          for (const j of bucket) {
            if (j <= i) continue;
            let ddx = x[i]! - x[j]!;
            let ddy = y[i]! - y[j]!;
            let d2 = ddx * ddx + ddy * ddy;
            if (d2 > 4 * k2) continue;
            if (d2 < 0.01) {
              ddx = rand() - 0.5;
              ddy = rand() - 0.5;
              d2 = ddx * ddx + ddy * ddy;
            }
            const f = k2 / d2; // (k²/d) / d: the force along the unit vector
            dx[i] = dx[i]! + ddx * f;
            dy[i] = dy[i]! + ddy * f;
            dx[j] = dx[j]! - ddx * f;
            dy[j] = dy[j]! - ddy * f;
          }
        }
      }
    }
  }

  /** Attraction d²/k along edges. */
  function attract(): void {
    for (let e = 0; e < es.length; e += 2) {
      const a = es[e]!;
      const b = es[e + 1]!;
      const ddx = x[a]! - x[b]!;
      const ddy = y[a]! - y[b]!;
      const d = Math.sqrt(ddx * ddx + ddy * ddy) || 0.01;
      const f = d / k; // (d²/k) / d
      dx[a] = dx[a]! - ddx * f;
      dy[a] = dy[a]! - ddy * f;
      dx[b] = dx[b]! + ddx * f;
      dy[b] = dy[b]! + ddy * f;
    }
  }

  /** Weak gravity keeps components and leaves from drifting off; then move, capped by the temperature. */
  function move(): void {
    for (let i = 0; i < n; i++) {
      const ddx = dx[i]! - gravity * x[i]!;
      const ddy = dy[i]! - gravity * y[i]!;
      const d = Math.sqrt(ddx * ddx + ddy * ddy);
      if (d > 0) {
        const m = Math.min(d, temp) / d;
        x[i] = x[i]! + ddx * m;
        y[i] = y[i]! + ddy * m;
      }
    }
  }

  return {
    step,
    get progress() {
      return it / iterations;
    },
    positions() {
      const out = new Map<string, Position>();
      input.ids.forEach((id, i) => out.set(id, { x: x[i]!, y: y[i]! }));
      return out;
    },
  };
}

/**
 * Runs a layout without blocking the window: above WORKER_NODES nodes in a Web Worker (one iteration there
 * outlasts a frame), otherwise in slices of a few milliseconds between frames.
 * `cancel()` drops it (a newer graph was opened); the promise then never settles.
 */
export function runForceLayout(input: LayoutInput, onProgress?: (fraction: number) => void): { done: Promise<Map<string, Position>>; cancel(): void } {
  const Worker = (globalThis as { Worker?: WorkerConstructor }).Worker;
  if (input.ids.length > WORKER_NODES && Worker) return runInWorker(Worker, input, onProgress);
  return runInSlices(input, onProgress);
}

function runInSlices(input: LayoutInput, onProgress?: (fraction: number) => void): { done: Promise<Map<string, Position>>; cancel(): void } {
  const layout = createForceLayout(input);
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const done = new Promise<Map<string, Position>>((resolve) => {
    const slice = (): void => {
      if (cancelled) return;
      const until = performance.now() + 14;
      let more = true;
      while (more && performance.now() < until) more = layout.step();
      if (!more) return resolve(layout.positions());
      onProgress?.(layout.progress);
      timer = setTimeout(slice, 0);
    };
    slice();
  });
  return {
    done,
    cancel() {
      cancelled = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** What this file uses of a Web Worker (also typechecked in Node, which has no DOM types). */
interface LayoutWorker {
  onmessage: ((e: { data: LayoutMessage }) => void) | null;
  onerror: (() => void) | null;
  postMessage(input: LayoutInput): void;
  terminate(): void;
}
type WorkerConstructor = new (url: URL, options: { type: 'module' }) => LayoutWorker;

/** The layout in a Web Worker; should the worker fail to start, in slices after all. */
function runInWorker(Worker: WorkerConstructor, input: LayoutInput, onProgress?: (fraction: number) => void): { done: Promise<Map<string, Position>>; cancel(): void } {
  const worker = new Worker(new URL('./forceLayout.worker.ts', import.meta.url), { type: 'module' });
  let fallback: { cancel(): void } | null = null;
  const done = new Promise<Map<string, Position>>((resolve) => {
    worker.onmessage = (e) => {
      if (e.data.kind === 'progress') return onProgress?.(e.data.fraction);
      worker.terminate();
      resolve(e.data.positions);
    };
    worker.onerror = () => {
      worker.terminate();
      const slices = runInSlices(input, onProgress);
      fallback = slices;
      void slices.done.then(resolve);
    };
  });
  const plain: LayoutInput = { ids: input.ids, edges: input.edges, seed: input.seed, k: input.k, iterations: input.iterations, repulsion: input.repulsion };
  worker.postMessage(plain);
  return {
    done,
    cancel() {
      worker.terminate();
      fallback?.cancel();
    },
  };
}
