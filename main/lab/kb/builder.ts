// Accumulates the knowledge base as nodes and edges with provenance. Facts from several packages about
// the same entity or relation are merged, never duplicated: the first source stays `meta.source`, later
// ones are listed in `meta.also`, so every fact can still be traced to each package that states it.
import type { AttrValue, Graph, GraphEdge, GraphNode } from '../formats/index';
import { GRAPH_FORMAT } from '../formats/index';
import { compareStrings } from './text';

export interface Provenance {
  /** npm package the fact comes from, e.g. 'world-countries'. */
  source: string;
  /** kb:// address of the record, e.g. 'kb://world-countries/FRA'. */
  url: string;
}

export interface EdgeFact extends Provenance {
  evidence: string;
  /** Extra facts about the relation itself (from/to dates, population share …): they go into `meta`. */
  extra?: Record<string, string | number>;
}

export interface NodeInput {
  id: string;
  type: string;
  name: string;
  aliases?: string[];
  attrs?: Record<string, AttrValue | undefined>;
}

/** Relations that hold both ways: stored once, with the smaller id as source, so they are never doubled. */
export const SYMMETRIC_RELATIONS: ReadonlySet<string> = new Set(['borders']);

export function edgeId(source: string, relation: string, target: string): string {
  return `${source}>${relation}>${target}`;
}

function cleanAttrs(attrs: Record<string, AttrValue | undefined> | undefined): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined) continue;
    if (value.type === 'number' && !Number.isFinite(value.value)) continue;
    if (value.type !== 'number' && (typeof value.value !== 'string' || value.value.trim() === '')) continue;
    out[key] = value;
  }
  return out;
}

function addAlso(meta: Record<string, unknown>, prov: Provenance): void {
  if (meta.source === prov.source && meta.url === prov.url) return;
  const also = (meta.also as Provenance[] | undefined) ?? [];
  if (!also.some((p) => p.source === prov.source && p.url === prov.url)) also.push({ source: prov.source, url: prov.url });
  meta.also = also;
}

export class KbBuilder {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly edges = new Map<string, GraphEdge>();

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  node(id: string): GraphNode | undefined {
    return this.nodes.get(id);
  }

  /** Adds a node, or merges names and attributes into the existing one (existing values win). */
  addNode(input: NodeInput, prov: Provenance): GraphNode {
    const existing = this.nodes.get(input.id);
    if (!existing) {
      const node: GraphNode = {
        id: input.id,
        type: input.type,
        name: input.name,
        aliases: [],
        attrs: cleanAttrs(input.attrs),
        meta: { source: prov.source, url: prov.url },
      };
      this.nodes.set(input.id, node);
      this.addAliases(input.id, input.aliases ?? []);
      return node;
    }
    this.addAliases(input.id, [input.name, ...(input.aliases ?? [])]);
    for (const [key, value] of Object.entries(cleanAttrs(input.attrs))) {
      if (!(key in existing.attrs)) existing.attrs[key] = value;
    }
    addAlso(existing.meta, prov);
    return existing;
  }

  /** Records that another package also describes this node. */
  cite(id: string, prov: Provenance): void {
    const node = this.nodes.get(id);
    if (node) addAlso(node.meta, prov);
  }

  addAliases(id: string, aliases: string[]): void {
    const node = this.nodes.get(id);
    if (!node) return;
    for (const alias of aliases) {
      const a = alias.trim();
      if (a !== '' && a !== node.name && !node.aliases.includes(a)) node.aliases.push(a);
    }
  }

  /** Sets an attribute unless the node already has it (the first source keeps authority). */
  setAttr(id: string, key: string, value: AttrValue | undefined, prov?: Provenance): void {
    const node = this.nodes.get(id);
    if (!node || value === undefined || key in node.attrs) return;
    const clean = cleanAttrs({ [key]: value });
    if (!(key in clean)) return;
    node.attrs[key] = clean[key]!;
    if (prov) addAlso(node.meta, prov);
  }

  /**
   * Adds a directed fact. Returns false (and adds nothing) when an endpoint is unknown or it is a self
   * loop; a repeated fact only records the extra source.
   */
  addEdge(source: string, relation: string, target: string, fact: EdgeFact): boolean {
    if (source === target || !this.nodes.has(source) || !this.nodes.has(target)) return false;
    if (SYMMETRIC_RELATIONS.has(relation) && compareStrings(target, source) < 0) [source, target] = [target, source];
    const id = edgeId(source, relation, target);
    const existing = this.edges.get(id);
    if (existing) {
      addAlso(existing.meta, fact);
      return true;
    }
    this.edges.set(id, {
      id,
      source,
      target,
      relation,
      meta: { source: fact.source, url: fact.url, evidence: fact.evidence, ...(fact.extra ?? {}) },
    });
    return true;
  }

  hasEdge(source: string, relation: string, target: string): boolean {
    return this.edges.has(edgeId(source, relation, target));
  }

  /** Drops nodes nothing links to: an isolated entity can neither be reached nor asked about. */
  pruneIsolated(keep: (node: GraphNode) => boolean = () => false): number {
    const linked = new Set<string>();
    for (const e of this.edges.values()) {
      linked.add(e.source);
      linked.add(e.target);
    }
    let dropped = 0;
    for (const [id, node] of this.nodes) {
      if (!linked.has(id) && !keep(node)) {
        this.nodes.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  /** The graph, sorted by id so the file does not depend on the order the extractors ran in. */
  toGraph(info: Record<string, unknown>): Graph {
    const byId = (a: { id: string }, b: { id: string }): number => compareStrings(a.id, b.id);
    return {
      format: GRAPH_FORMAT,
      info,
      nodes: [...this.nodes.values()].sort(byId),
      edges: [...this.edges.values()].sort(byId),
    };
  }
}
