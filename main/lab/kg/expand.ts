// Knowledge-graph construction by random-walk expansion over the knowledge base (SailorFog-QA V2;
// docs/pipeline.md, 'Knowledge graph expansion'). Works on any KbIndex: the bundled KB or a small hand-built one.
//
// The process, one "visit" per step:
//   0. Start from a rare seed entity (see `seedCandidates`) or the one given.
//   1. Choose the entity to visit: with probability `expandProb` any existing entity that still has
//      unexplored relations (weighted toward entities visited less often), otherwise the newest such
//      entity, so the walk mostly runs on but keeps branching from older nodes too.
//   2. Visiting reads the entity's page: its facts are its attributes; every neighbour already in the
//      graph is "seen" again (meta.seen counts it). Relations from it to entities already in the graph
//      are added first: each closes a cycle (meta.closes_cycle), which is what makes the graph a web
//      instead of a tree.
//   3. Then 1..maxNewPerVisit new, distinct entities are connected to it. The relation is drawn with a
//      weight favouring relations and entity types the graph has little of (diversity); the entity
//      within it favours ones that have KB relations to entities already in the graph, and those
//      relations are added at once (cycle closing again).
//   4. Stop when the graph has `maxEdges` edges (or nothing is left to explore).
// All randomness goes through the seeded Rng and all iteration follows the KB's stored order, so the
// same KB, seed and options give a byte-identical file.
import type { Graph, GraphEdge, GraphNode, Meta } from '../formats/index';
import { GRAPH_FORMAT } from '../formats/index';
import { LabError } from '../base/errors';
import { otherEnd, type KbIndex } from '../kb/kb-index';
import { createRng, type Rng } from '../util/rng';

/**
 * What the walk reads: the bundled KB's index, or a knowledge-base source that fetches a node's
 * neighbourhood on demand (main/lab/kbsource: an RDF store, a Wikidata dump, a SPARQL endpoint).
 * `node`, `incident` and `degree` answer for nodes `load` has fetched; `typeOf` also for their neighbours.
 */
export interface WalkSource {
  /** `info.kb_version` of the graph written. */
  readonly version: string;
  /** Where the knowledge base came from (kind, location, licence, mapping): `info.kb` of the graph written. */
  readonly describe?: Record<string, unknown>;
  node(id: string): GraphNode | undefined;
  incident(id: string): readonly GraphEdge[];
  degree(id: string): number;
  /** The type of a loaded node or of a neighbour of one. */
  typeOf(id: string): string | undefined;
  /** Fetches the node's page and its relations; false when the source does not know the node. */
  load(id: string): Promise<boolean>;
}

/** The bundled (or any in-memory) KB as a walk source: everything is loaded already. */
export function indexWalkSource(kb: KbIndex): WalkSource {
  return {
    version: kb.version,
    node: (id) => kb.node(id),
    incident: (id) => kb.incident(id),
    degree: (id) => kb.degree(id),
    typeOf: (id) => kb.node(id)?.type,
    load: (id) => Promise.resolve(kb.node(id) !== undefined),
  };
}

export interface ExpandOptions {
  /** KB node id to start from; by default a rare entity chosen by `chooseSeed`. */
  seed?: string;
  /** Stop once the graph has this many edges. */
  maxEdges: number;
  /** Seed of the random number generator. */
  rng: number;
  /** Probability of visiting a random existing entity instead of the newest one (default 0.35). */
  expandProb?: number;
  /** New entities connected per visit: 1..this (default 3). */
  maxNewPerVisit?: number;
  /** Cycle-closing relations added per entity visited or added (default 4). */
  maxClosePerNode?: number;
  /** How much a candidate's links into the graph raise its chance (default 4 per link). */
  cycleBonus?: number;
  onProgress?: (fraction: number, message: string) => void;
}

export const EXPAND_DEFAULTS = { expandProb: 0.35, maxNewPerVisit: 3, maxClosePerNode: 4, cycleBonus: 4 } as const;

/** Seeds are "rare": at most this many KB relations (the obscure long tail), and at least this few. */
export const SEED_DEGREE = { min: 2, max: 4 } as const;

/**
 * Rare seed entities: in the KB's main component, with SEED_DEGREE.min..max relations that reach at
 * least two kinds of entity (so the walk can branch), and at least two attributes (facts to ask about).
 */
export function seedCandidates(kb: KbIndex): string[] {
  const out: string[] = [];
  for (const node of kb.graph.nodes) {
    const degree = kb.degree(node.id);
    if (degree < SEED_DEGREE.min || degree > SEED_DEGREE.max) continue;
    if (kb.component(node.id) !== 0 || Object.keys(node.attrs).length < 2) continue;
    const neighbourTypes = new Set(kb.incident(node.id).map((e) => kb.node(otherEnd(e, node.id))?.type));
    if (neighbourTypes.size >= 2) out.push(node.id);
  }
  return out;
}

/** Picks an entity type uniformly, then a candidate of that type: rare kinds are as likely as airports. */
export function chooseSeed(kb: KbIndex, rng: Rng): string {
  const byType = new Map<string, string[]>();
  for (const id of seedCandidates(kb)) {
    const type = kb.node(id)!.type;
    const list = byType.get(type);
    if (list) list.push(id);
    else byType.set(type, [id]);
  }
  if (byType.size === 0) throw new LabError('bad_input', 'the knowledge base has no entity that qualifies as a seed');
  const types = [...byType.keys()].sort();
  return rng.pick(byType.get(rng.pick(types))!);
}

function unknownSeed(kb: KbIndex, seed: string): LabError {
  const guesses = kb
    .lookupName(seed.includes(':') ? seed.slice(seed.indexOf(':') + 1) : seed)
    .slice(0, 5)
    .map((id) => `${id} (${kb.node(id)!.name})`);
  const hint = guesses.length ? `; did you mean ${guesses.join(', ')}?` : '; ids look like country:FRA, city:2988507, person:wn10908153';
  return new LabError('bad_request', `seed '${seed}' is not an entity of the knowledge base${hint}`);
}

class Expansion {
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();
  private readonly order: string[] = [];
  private readonly visits = new Map<string, number>();
  /** KB edges of each graph node that are already in the graph: open while below the KB degree. */
  private readonly linked = new Map<string, number>();
  private readonly typeCount = new Map<string, number>();
  private readonly relationCount = new Map<string, number>();

  /** KB relations from each entity to entities in the graph (counted from the graph's side, so a source never fetches a candidate just to rank it). */
  private readonly linksFromGraph = new Map<string, number>();

  constructor(
    private readonly kb: WalkSource,
    private readonly rng: Rng,
    private readonly opts: Required<Omit<ExpandOptions, 'seed' | 'onProgress'>>,
  ) {}

  get full(): boolean {
    return this.edges.size >= this.opts.maxEdges;
  }

  isOpen(id: string): boolean {
    return (this.linked.get(id) ?? 0) < this.kb.degree(id);
  }

  addNode(id: string, step: number, from: string | null, evidence: string): void {
    const kbNode = this.kb.node(id)!;
    const attrs: GraphNode['attrs'] = {};
    for (const [key, value] of Object.entries(kbNode.attrs)) attrs[key] = { ...value };
    const { source, url, ...restMeta } = kbNode.meta;
    const meta: Meta = {
      found_at_step: step,
      found_from: from,
      query: from === null ? 'seed' : `visit ${String(this.kb.node(from)?.meta.url ?? from)}`,
      source,
      url,
      evidence,
      seen: 1,
      visited: false,
      kb_degree: this.kb.degree(id),
      ...restMeta,
    };
    this.nodes.set(id, { id, type: kbNode.type, name: kbNode.name, aliases: [...kbNode.aliases], attrs, meta });
    this.order.push(id);
    this.linked.set(id, 0);
    this.typeCount.set(kbNode.type, (this.typeCount.get(kbNode.type) ?? 0) + 1);
    for (const e of this.kb.incident(id)) {
      const o = otherEnd(e, id);
      if (o !== id) this.linksFromGraph.set(o, (this.linksFromGraph.get(o) ?? 0) + 1);
    }
  }

  addEdge(e: GraphEdge, step: number, from: string, closesCycle: boolean): void {
    const { source, url, evidence, ...restMeta } = e.meta;
    const meta: Meta = {
      found_at_step: step,
      found_from: from,
      query: `visit ${String(this.kb.node(from)?.meta.url ?? from)}`,
      source,
      url,
      evidence,
      seen: 1,
      closes_cycle: closesCycle,
      ...restMeta,
    };
    this.edges.set(e.id, { id: e.id, source: e.source, target: e.target, relation: e.relation, meta });
    for (const end of e.source === e.target ? [e.source] : [e.source, e.target]) this.linked.set(end, (this.linked.get(end) ?? 0) + 1);
    this.relationCount.set(e.relation, (this.relationCount.get(e.relation) ?? 0) + 1);
  }

  /** Step 1: the next entity to visit, or undefined when nothing is left to explore. */
  pickVisit(): string | undefined {
    if (this.rng.next() < this.opts.expandProb) {
      const open = this.order.filter((id) => this.isOpen(id));
      if (open.length === 0) return undefined;
      return open[this.rng.weighted(open.map((id) => 1 / (1 + (this.visits.get(id) ?? 0))))];
    }
    for (let i = this.order.length - 1; i >= 0; i--) if (this.isOpen(this.order[i]!)) return this.order[i];
    return undefined;
  }

  /** Relations from `id` to entities already in the graph that are not yet edges: each closes a cycle. */
  closeCycles(id: string, step: number, from: string): void {
    const closing = this.kb.incident(id).filter((e) => !this.edges.has(e.id) && this.nodes.has(otherEnd(e, id)));
    if (closing.length > this.opts.maxClosePerNode) this.rng.shuffle(closing);
    for (const e of closing.slice(0, this.opts.maxClosePerNode)) {
      if (this.full) return;
      this.addEdge(e, step, from, true);
    }
  }

  /** Step 3: one new entity connected to `id`, or false when it has no unexplored neighbour. Yields the entity to fetch before it is added. */
  *discover(id: string, step: number): Generator<string, boolean> {
    const groups = new Map<string, GraphEdge[]>();
    for (const e of this.kb.incident(id)) {
      const o = otherEnd(e, id);
      if (this.nodes.has(o) || this.edges.has(e.id)) continue;
      const list = groups.get(e.relation);
      if (list) list.push(e);
      else groups.set(e.relation, [e]);
    }
    if (groups.size === 0) return false;
    const relations = [...groups.keys()];
    const novelType = (e: GraphEdge): boolean => !this.typeCount.has(this.kb.typeOf(otherEnd(e, id))!);
    const relWeights = relations.map((rel) => {
      const novel = groups.get(rel)!.some(novelType) ? 3 : 1;
      return novel / (1 + (this.relationCount.get(rel) ?? 0));
    });
    const candidates = groups.get(relations[this.rng.weighted(relWeights)]!)!;
    // Dedupe targets reached by several edges of one relation (keep the first edge in KB order).
    const seenTargets = new Set<string>();
    const unique = candidates.filter((e) => {
      const o = otherEnd(e, id);
      if (seenTargets.has(o)) return false;
      seenTargets.add(o);
      return true;
    });
    // A candidate's KB relations to entities already in the graph, other than `id` itself.
    const toVia = new Map<string, number>();
    for (const e of this.kb.incident(id)) toVia.set(otherEnd(e, id), (toVia.get(otherEnd(e, id)) ?? 0) + 1);
    const linksIntoGraph = (o: string): number => (this.linksFromGraph.get(o) ?? 0) - (toVia.get(o) ?? 0);
    const weights = unique.map((e) => {
      const o = otherEnd(e, id);
      return (1 + this.opts.cycleBonus * linksIntoGraph(o)) * (novelType(e) ? 2 : 1);
    });
    const chosen = unique[this.rng.weighted(weights)]!;
    const target = otherEnd(chosen, id);
    yield target;
    this.addNode(target, step, id, String(chosen.meta.evidence ?? ''));
    this.addEdge(chosen, step, id, false);
    this.closeCycles(target, step, id);
    return true;
  }

  /** Step 2 and 3 for one entity. */
  *visit(id: string, step: number): Generator<string, void> {
    this.visits.set(id, (this.visits.get(id) ?? 0) + 1);
    const node = this.nodes.get(id)!;
    node.meta.visited = true;
    for (const e of this.kb.incident(id)) {
      const o = otherEnd(e, id);
      const seenNode = o !== id ? this.nodes.get(o) : undefined;
      if (seenNode) seenNode.meta.seen = (seenNode.meta.seen as number) + 1;
      const seenEdge = this.edges.get(e.id);
      if (seenEdge) seenEdge.meta.seen = (seenEdge.meta.seen as number) + 1;
    }
    this.closeCycles(id, step, id);
    const count = 1 + this.rng.int(this.opts.maxNewPerVisit);
    for (let i = 0; i < count && !this.full; i++) if (!(yield* this.discover(id, step))) break;
  }
}

type Opts = Required<Omit<ExpandOptions, 'seed' | 'onProgress'>>;

function resolveOptions(options: ExpandOptions): Opts {
  if (!Number.isInteger(options.maxEdges) || options.maxEdges < 1) throw new LabError('bad_request', `maxEdges must be a whole number >= 1, got ${options.maxEdges}`);
  const opts = {
    maxEdges: options.maxEdges,
    rng: options.rng,
    expandProb: options.expandProb ?? EXPAND_DEFAULTS.expandProb,
    maxNewPerVisit: options.maxNewPerVisit ?? EXPAND_DEFAULTS.maxNewPerVisit,
    maxClosePerNode: options.maxClosePerNode ?? EXPAND_DEFAULTS.maxClosePerNode,
    cycleBonus: options.cycleBonus ?? EXPAND_DEFAULTS.cycleBonus,
  };
  if (!(opts.expandProb >= 0 && opts.expandProb <= 1)) throw new LabError('bad_request', `expandProb must be between 0 and 1, got ${opts.expandProb}`);
  if (!(opts.maxNewPerVisit >= 1)) throw new LabError('bad_request', `maxNewPerVisit must be at least 1, got ${opts.maxNewPerVisit}`);
  return opts;
}

/**
 * The walk from `seed` (already loaded). It yields each entity it is about to add, so a driver can fetch
 * it first: the bundled KB's driver runs straight through, a source's awaits `load` (one algorithm, two drivers).
 */
function *walk(kb: WalkSource, rng: Rng, opts: Opts, seed: string, onProgress: ExpandOptions['onProgress']): Generator<string, Graph> {
  if (kb.degree(seed) === 0) throw new LabError('bad_request', `seed '${seed}' has no relations in the knowledge base, so nothing can be expanded from it`);
  const x = new Expansion(kb, rng, opts);
  x.addNode(seed, 0, null, 'seed entity');
  // Enough steps for any graph that can reach maxEdges; a guard against a KB with nothing left to add.
  const maxSteps = 20 * opts.maxEdges + 100;
  let step = 0;
  let stop: 'max_edges' | 'exhausted' | 'max_steps' = 'max_steps';
  while (step < maxSteps) {
    if (x.full) {
      stop = 'max_edges';
      break;
    }
    const next = x.pickVisit();
    if (next === undefined) {
      stop = 'exhausted';
      break;
    }
    step++;
    yield* x.visit(next, step);
    if (step % 10 === 0) onProgress?.(Math.min(1, x.edges.size / opts.maxEdges), `step ${step}: ${x.nodes.size} entities, ${x.edges.size} relations`);
  }
  if (x.full) stop = 'max_edges';
  onProgress?.(1, `expansion done after ${step} steps (${stop}): ${x.nodes.size} entities, ${x.edges.size} relations`);
  return {
    format: GRAPH_FORMAT,
    info: {
      kind: 'sailor-kg',
      method: 'random-walk expansion (docs/pipeline.md, Knowledge graph expansion)',
      kb_version: kb.version,
      ...(kb.describe ? { kb: kb.describe } : {}),
      seed,
      rng: opts.rng,
      max_edges: opts.maxEdges,
      expand_prob: opts.expandProb,
      max_new_per_visit: opts.maxNewPerVisit,
      max_close_per_node: opts.maxClosePerNode,
      cycle_bonus: opts.cycleBonus,
      steps: step,
      stop_reason: stop,
    },
    nodes: [...x.nodes.values()],
    edges: [...x.edges.values()],
  };
}

/** Builds a knowledge graph by random-walk expansion over `kb`; see the header for the process. */
export function expandGraph(kb: KbIndex, options: ExpandOptions): Graph {
  const opts = resolveOptions(options);
  const rng = createRng(opts.rng);
  const seed = options.seed ?? chooseSeed(kb, rng);
  if (!kb.node(seed)) throw unknownSeed(kb, seed);
  const run = walk(indexWalkSource(kb), rng, opts, seed, options.onProgress);
  for (;;) {
    const r = run.next(); // everything is in memory: nothing to fetch
    if (r.done) return r.value;
  }
}

/** The same walk over a source that fetches each entity's neighbourhood as the walk reaches it. `options.seed` is required. */
export async function expandFromSource(kb: WalkSource, options: ExpandOptions): Promise<Graph> {
  const opts = resolveOptions(options);
  const rng = createRng(opts.rng);
  const seed = options.seed;
  if (seed === undefined) throw new LabError('bad_request', 'a knowledge-base source needs a seed entity to start from (--seed, e.g. wd:Q142 or an IRI)');
  if (!(await kb.load(seed))) throw new LabError('bad_request', `seed '${seed}' is not an entity of the knowledge base (${String(kb.describe?.location ?? kb.version)}): it has no label there`);
  const run = walk(kb, rng, opts, seed, options.onProgress);
  let r = run.next();
  while (!r.done) {
    if (!(await kb.load(r.value))) throw new LabError('bad_input', `the knowledge base named '${r.value}' as a neighbour but has no page for it`);
    r = run.next();
  }
  return r.value;
}
