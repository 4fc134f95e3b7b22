// The force layout's Barnes–Hut repulsion: hand-placed nodes, the push each gets (k²/d away from every node
// closer than 2k), exact where groups are opened and close to exact where they are summed.
import { describe, expect, it } from 'vitest';
import { addRepulsion, buildTree } from '../../renderer/src/util/quadRepulsion';
import { createForceLayout } from '../../renderer/src/util/forceLayout';

const noJitter = (): number => 0.25;
function push(xs: number[], ys: number[], k: number, theta: number): { fx: number[]; fy: number[] } {
  const fx = new Float64Array(xs.length);
  const fy = new Float64Array(xs.length);
  addRepulsion({ x: Float64Array.from(xs), y: Float64Array.from(ys), k, theta, rand: noJitter }, fx, fy);
  return { fx: [...fx], fy: [...fy] };
}

describe('addRepulsion', () => {
  it('pushes two nodes apart by k²/d, and not at all beyond 2k', () => {
    // k = 10, 5 apart: k²/d = 100 / 5 = 20 along x, away from each other.
    const near = push([0, 5], [0, 0], 10, 0.8);
    expect(near.fx[0]).toBeCloseTo(-20);
    expect(near.fx[1]).toBeCloseTo(20);
    expect(near.fy).toEqual([0, 0]);
    // 3-4-5 triangle, d = 5: the push is (3, 4)/5 × 20 = (12, 16).
    const diag = push([0, 3], [0, 4], 10, 0.8);
    expect(diag.fx[1]).toBeCloseTo(12);
    expect(diag.fy[1]).toBeCloseTo(16);
    // 21 apart with k = 10: out of range (2k = 20).
    expect(push([0, 21], [0, 0], 10, 0.8).fx).toEqual([0, 0]);
  });

  it('sums the pushes of several nodes', () => {
    // A node at the origin with nodes at (4, 0), (-2, 0), (0, 8), k = 4 (range 8): pushes 16/4 = 4 to the left,
    // 16/2 = 8 to the right, 16/8 = 2 downwards (y: -2).
    const r = push([0, 4, -2, 0], [0, 0, 0, 8], 4, 0.8);
    expect(r.fx[0]).toBeCloseTo(-4 + 8);
    expect(r.fy[0]).toBeCloseTo(-2);
  });

  it('with theta 0 equals the pairwise sum on a dense clump; with 0.8 stays within a few per cent of it', () => {
    // 400 nodes in a round clump (denser in the middle, spiral-placed), k = 6 (range 12) against a radius of
    // about 7: nearly every pair interacts, as in a hub's clump. The pairwise sum is computed here directly.
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < 400; i++) {
      const r = 2.5 * Math.sqrt(-2 * Math.log(1 - (i + 0.5) / 400));
      xs.push(r * Math.cos(i * 2.39996));
      ys.push(r * Math.sin(i * 2.39996));
    }
    const k = 6;
    const exact = xs.map((_, i) => {
      let fx = 0;
      let fy = 0;
      for (let j = 0; j < xs.length; j++) {
        const dx = xs[i]! - xs[j]!;
        const dy = ys[i]! - ys[j]!;
        const d2 = dx * dx + dy * dy;
        if (j !== i && d2 <= 4 * k * k) {
          fx += (dx * k * k) / d2;
          fy += (dy * k * k) / d2;
        }
      }
      return [fx, fy] as const;
    });
    const same = push(xs, ys, k, 0);
    for (let i = 0; i < xs.length; i++) {
      expect(same.fx[i]).toBeCloseTo(exact[i]![0], 6);
      expect(same.fy[i]).toBeCloseTo(exact[i]![1], 6);
    }
    const approx = push(xs, ys, k, 0.8);
    let err = 0;
    let norm = 0;
    for (let i = 0; i < xs.length; i++) {
      err += Math.hypot(approx.fx[i]! - exact[i]![0], approx.fy[i]! - exact[i]![1]);
      norm += Math.hypot(exact[i]![0], exact[i]![1]);
    }
    expect(err / norm).toBeLessThan(0.1);
    expect(err).toBeGreaterThan(0); // groups really were summed
  });

  it('keeps coincident nodes in one leaf and pushes them apart by the jitter', () => {
    const xs = Array.from({ length: 30 }, () => 5);
    const tree = buildTree(Float64Array.from(xs), Float64Array.from(xs));
    expect(tree.mass[0]).toBe(30);
    const r = push(xs, xs, 10, 0.8);
    expect(r.fx.every((f) => Number.isFinite(f) && f !== 0)).toBe(true);
  });
});

describe('createForceLayout', () => {
  it('lays out by the quadtree: the same picture for the same seed, edges near k long', () => {
    // A 600-node ring of 50-node stars.
    const ids = Array.from({ length: 600 }, (_, i) => `n${i}`);
    const edges: Array<[string, string]> = [];
    for (let i = 0; i < 600; i++) {
      if (i % 50 !== 0) edges.push([`n${i - (i % 50)}`, `n${i}`]);
      else edges.push([`n${i}`, `n${(i + 50) % 600}`]);
    }
    const run = (): Map<string, { x: number; y: number }> => {
      const l = createForceLayout({ ids, edges, seed: 'g', iterations: 40, repulsion: 'quadtree' });
      while (l.step());
      return l.positions();
    };
    const a = run();
    expect(run()).toEqual(a);
    const mean = edges.reduce((s, [u, v]) => s + Math.hypot(a.get(u)!.x - a.get(v)!.x, a.get(u)!.y - a.get(v)!.y), 0) / edges.length;
    expect(mean).toBeGreaterThan(20);
    expect(mean).toBeLessThan(300);
  });
});
