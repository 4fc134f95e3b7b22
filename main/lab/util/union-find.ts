// Disjoint sets over 0..n-1 (union-find with path halving): connected components, merged orbits.

export interface UnionFind {
  /** The representative of x's set: its smallest member. */
  find(x: number): number;
  /** Joins the sets of a and b; true when they were apart. */
  union(a: number, b: number): boolean;
}

export function unionFind(n: number): UnionFind {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  return {
    find,
    union(a, b) {
      const ra = find(a);
      const rb = find(b);
      if (ra === rb) return false;
      parent[Math.max(ra, rb)] = Math.min(ra, rb);
      return true;
    },
  };
}
