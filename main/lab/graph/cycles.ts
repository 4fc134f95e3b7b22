// Which edges lie on a cycle of the underlying undirected multigraph: exactly the edges that are not
// bridges. Used to highlight cycles in the graph explorer. Iterative Tarjan (no recursion limit).

export interface EdgeLike {
  id: string;
  source: string;
  target: string;
}

export function cycleEdges(nodeIds: readonly string[], edges: readonly EdgeLike[]): Set<string> {
  const adj = new Map<string, Array<{ to: string; edge: number }>>();
  for (const id of nodeIds) adj.set(id, []);
  edges.forEach((e, i) => {
    if (e.source === e.target) return; // a self-loop is a cycle on its own; handled below
    adj.get(e.source)?.push({ to: e.target, edge: i });
    adj.get(e.target)?.push({ to: e.source, edge: i });
  });
  const disc = new Map<string, number>();
  const low = new Map<string, number>();
  const bridges = new Set<number>();
  let time = 0;
  for (const root of nodeIds) {
    if (disc.has(root)) continue;
    // Stack frames: node, the edge index used to enter it (not a node: parallel edges must count), next neighbour.
    const stack: Array<{ node: string; via: number; next: number }> = [{ node: root, via: -1, next: 0 }];
    disc.set(root, time);
    low.set(root, time++);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const nbrs = adj.get(frame.node)!;
      if (frame.next < nbrs.length) {
        const { to, edge } = nbrs[frame.next++]!;
        if (edge === frame.via) continue;
        if (disc.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, disc.get(to)!));
        } else {
          disc.set(to, time);
          low.set(to, time++);
          stack.push({ node: to, via: edge, next: 0 });
        }
      } else {
        stack.pop();
        const parent = stack[stack.length - 1];
        if (parent) {
          low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
          if (low.get(frame.node)! > disc.get(parent.node)!) bridges.add(frame.via);
        }
      }
    }
  }
  const onCycle = new Set<string>();
  edges.forEach((e, i) => {
    if (e.source === e.target || (!bridges.has(i) && adj.has(e.source) && adj.has(e.target))) onCycle.add(e.id);
  });
  return onCycle;
}
