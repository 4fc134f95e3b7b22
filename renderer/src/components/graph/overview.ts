// The Graph explorer's opening view of a big graph (issue 45, part 2, item 6): its communities, found by
// Louvain (graphology-communities-louvain), one node per community named after its best-connected members and
// sized by how many it holds, joined by how many edges run between them. A few dozen nodes with visible
// edges and labels, where the whole graph of thousands would be a hairball; the user drills into one.
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';

/** Above this many nodes the explorer opens on the overview (the whole graph's labels are culled above 400 too). */
export const OVERVIEW_ABOVE = 400;
/** The overview shows at most this many communities, the largest (it says how many it leaves out). */
export const MAX_COMMUNITIES = 40;
/** A community is named after this many of its best-connected members. */
const NAMED_MEMBERS = 2;

export interface OverviewNode {
  id: string;
  name: string;
  type: string;
}

export interface Community {
  /** "c0", "c1"…: largest first. */
  id: string;
  size: number;
  /** Its best-connected member (most edges in the whole graph): where drilling in starts. */
  hub: string;
  /** Its best-connected members' names ("France, Paris"). */
  name: string;
  /** The type most of its members have. */
  type: string;
}

export interface OverviewLink {
  id: string;
  source: string;
  target: string;
  /** Edges of the graph between the two communities. */
  weight: number;
}

export interface GraphOverview {
  /** The largest communities, largest first (at most `max`). */
  communities: Community[];
  links: OverviewLink[];
  /** Every community found, and the nodes the shown ones hold (the rest is said in words). */
  found: number;
  covered: number;
}

/**
 * Communities of an undirected view of the graph (parallel edges add weight, self-loops are left out).
 * Deterministic: Louvain visits nodes in order (no random walk), so one graph always gives one overview.
 */
export function communityOverview(nodes: readonly OverviewNode[], edges: ReadonlyArray<readonly [string, string]>, max = MAX_COMMUNITIES): GraphOverview {
  const g = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  for (const n of nodes) g.mergeNode(n.id);
  const degree = new Map<string, number>();
  for (const [s, t] of edges) {
    if (s === t || !g.hasNode(s) || !g.hasNode(t)) continue;
    degree.set(s, (degree.get(s) ?? 0) + 1);
    degree.set(t, (degree.get(t) ?? 0) + 1);
    if (g.hasEdge(s, t)) g.updateEdgeAttribute(s, t, 'weight', (w: number | undefined) => (w ?? 0) + 1);
    else g.addEdge(s, t, { weight: 1 });
  }
  const of: Record<string, number> = g.size ? louvain(g, { randomWalk: false, getEdgeWeight: 'weight' }) : Object.fromEntries(nodes.map((n, i) => [n.id, i]));

  const groups = new Map<number, OverviewNode[]>();
  for (const n of nodes) {
    const c = of[n.id]!;
    (groups.get(c) ?? groups.set(c, []).get(c)!).push(n);
  }
  const deg = (id: string): number => degree.get(id) ?? 0;
  // Largest first; ties by best-connected member, then by name, so the order never depends on Louvain's numbering.
  const ranked = [...groups.values()]
    .map((members) => [...members].sort((a, b) => deg(b.id) - deg(a.id) || a.name.localeCompare(b.name)))
    .sort((a, b) => b.length - a.length || deg(b[0]!.id) - deg(a[0]!.id) || a[0]!.name.localeCompare(b[0]!.name));
  const shown = ranked.slice(0, max);
  const idOf = new Map<string, string>();
  const communities: Community[] = shown.map((members, i) => {
    const id = `c${i}`;
    for (const m of members) idOf.set(m.id, id);
    return { id, size: members.length, hub: members[0]!.id, name: members.slice(0, NAMED_MEMBERS).map((m) => m.name).join(', '), type: mostCommon(members.map((m) => m.type)) };
  });

  const weights = new Map<string, number>();
  g.forEachEdge((_e, a: { weight?: number }, s, t) => {
    const cs = idOf.get(s);
    const ct = idOf.get(t);
    if (!cs || !ct || cs === ct) return;
    const key = cs < ct ? `${cs}|${ct}` : `${ct}|${cs}`;
    weights.set(key, (weights.get(key) ?? 0) + (a.weight ?? 1));
  });
  const links = [...weights].map(([key, weight]) => {
    const [source, target] = key.split('|') as [string, string];
    return { id: `${source}-${target}`, source, target, weight };
  });
  return { communities, links, found: groups.size, covered: communities.reduce((s, c) => s + c.size, 0) };
}

function mostCommon(xs: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? '';
}
