// A knowledge base the walk reads one neighbourhood at a time. A FactStore (an RDF file's store, a Wikidata
// dump, a SPARQL endpoint) answers "the facts about this IRI" and "who points at it"; SourcedKb applies the
// mapping and serves the walk (kg/expand.ts, WalkSource): the node with its label, aliases, type and typed
// attributes, and its relations to other labelled entities. Every answer is recorded in the meta of what
// it produced (`kb_query`: the query, or the dump line), and the graph's `info.kb` says where the KB came
// from and under which licence.
import { createHash } from 'node:crypto';
import type { AttrValue, GraphEdge, GraphNode } from '../formats/index';
import { LabError } from '../base/errors';
import { isIsoDate } from '../kg/io';
import type { WalkSource } from '../kg/expand';
import { Mapper, type Mapping, type Role } from './mapping';
import { compareCodePoints, isIri, ntriplesTerm, type Fact, type IncomingFact, type Literal } from './terms';

export type SourceKind = 'rdf' | 'wikidata' | 'sparql';

export interface FactStore {
  readonly kind: SourceKind;
  /** The file or endpoint, as the user named it. */
  readonly location: string;
  /** Every fact with `iri` as subject (literals in any language: the mapping filters). `answer`: where they came from. */
  outgoing(iri: string, language: string): Promise<{ facts: Fact[]; answer: string }>;
  /** Facts whose object is `iri`, other than the `exclude` predicates: at most `limit`, ordered by predicate then subject. */
  incoming(iri: string, exclude: readonly string[], limit: number): Promise<{ facts: IncomingFact[]; answer: string }>;
  /** The facts with one of `predicates` about each of `iris`: the labels and types of neighbours. */
  select(iris: readonly string[], predicates: readonly string[]): Promise<Map<string, Fact[]>>;
  /** Figures worth recording (triples loaded, requests made). */
  figures?(): Record<string, number>;
  /** What the dump says of itself: its licence and title (an RDF dump's dataset description). */
  metadata?(): DumpMetadata;
}

export interface DumpMetadata {
  licence?: string;
  source?: string;
}

/** Where an imported knowledge base's source and licence come from, first that has it: the user's, the dump's, the mapping's. */
export interface KbProvenance {
  source?: string;
  licence?: string;
}

/** A literal as an attribute value of the kind the mapping (or its datatype) says; undefined when it cannot be one. */
export function attrValue(lit: Literal, role: Extract<Role, { kind: 'attribute' }>, unitName: (iri: string) => string): AttrValue | undefined {
  const kind = role.datatype ?? Mapper.datatypeOf(lit);
  if (kind === 'number') {
    const n = Number(lit.value);
    if (lit.value.trim() === '' || !Number.isFinite(n)) return { type: 'string', value: lit.value };
    const unit = lit.unit ? unitName(lit.unit) : role.unit;
    return unit ? { type: 'number', value: n, unit } : { type: 'number', value: n };
  }
  if (kind === 'date') {
    const m = /^(\d{4})(-\d{2})?(-\d{2})?/.exec(lit.value.trim());
    const text = m ? `${m[1]}${m[2] ?? ''}${m[3] ?? ''}` : '';
    return isIsoDate(text) ? { type: 'date', value: text } : { type: 'string', value: lit.value };
  }
  return { type: 'string', value: lit.value };
}

const factOrder = (a: Fact, b: Fact): number => compareCodePoints(a.p, b.p) || compareCodePoints(ntriplesTerm(a.o), ntriplesTerm(b.o));

/** The mapping's hash: a graph built with another mapping is another graph. */
export function mappingVersion(m: Mapping): string {
  return createHash('sha256').update(JSON.stringify(m)).digest('hex').slice(0, 12);
}

export class SourcedKb implements WalkSource {
  readonly version: string;
  readonly describe: Record<string, unknown>;
  readonly mapper: Mapper;
  private readonly nodes = new Map<string, GraphNode>();
  private readonly incidentOf = new Map<string, GraphEdge[]>();
  private readonly edgeById = new Map<string, GraphEdge>();
  private readonly types = new Map<string, string>();
  /** Whether an IRI has a label (is an entity); its type IRIs. Filled for neighbours in batches. */
  private readonly summary = new Map<string, { labelled: boolean; typeIris: string[] }>();
  /** Labels of classes and units (type and unit names). */
  private readonly names = new Map<string, string | undefined>();

  constructor(
    readonly store: FactStore,
    mapping: Mapping,
    given: KbProvenance = {},
  ) {
    this.mapper = new Mapper(mapping);
    this.version = `${mapping.name}-${mappingVersion(mapping)}`;
    const dump = store.metadata?.() ?? {};
    const licence = given.licence ? { licence: given.licence, licence_from: 'option' } : dump.licence ? { licence: dump.licence, licence_from: 'dump' } : mapping.licence ? { licence: mapping.licence, licence_from: 'mapping' } : {};
    this.describe = {
      kind: store.kind,
      location: store.location,
      mapping: mapping.name,
      source: given.source ?? dump.source ?? mapping.source ?? mapping.name,
      ...licence,
      ...(mapping.url ? { url: mapping.url } : {}),
    };
  }

  idOf(iri: string): string {
    return this.mapper.prefixes.compact(iri);
  }

  iriOf(id: string): string {
    return this.mapper.prefixes.expand(id) ?? id;
  }

  /** A node id from what a user typed: an IRI, a prefixed name (wd:Q142) or a bare Q-id. */
  resolveSeed(text: string): string {
    const t = text.trim();
    if (/^[QPL]\d+$/.test(t) && this.mapper.mapping.prefixes.wd) return `wd:${t}`;
    const iri = this.mapper.prefixes.expand(t);
    if (iri === undefined) throw new LabError('bad_request', `seed '${text}': give an IRI (<http://…>), a prefixed name with one of the mapping's prefixes (${Object.keys(this.mapper.mapping.prefixes).join(', ')}) or a Q-id`);
    return this.idOf(iri);
  }

  node(id: string): GraphNode | undefined {
    return this.nodes.get(id);
  }

  incident(id: string): readonly GraphEdge[] {
    return this.incidentOf.get(id) ?? [];
  }

  degree(id: string): number {
    return this.incidentOf.get(id)?.length ?? 0;
  }

  typeOf(id: string): string | undefined {
    return this.types.get(id);
  }

  /** Labels of classes and units not named yet, in one request. */
  private async learnNames(iris: Iterable<string>): Promise<void> {
    const missing = [...new Set(iris)].filter((i) => !this.names.has(i)).sort(compareCodePoints);
    if (missing.length === 0) return;
    const found = await this.store.select(missing, this.mapper.labelPredicates);
    for (const iri of missing) this.names.set(iri, this.mapper.pickLabel(this.mapper.labelsOf(found.get(iri) ?? [])));
  }

  private nameOf = (iri: string): string | undefined => this.names.get(iri);

  /** Labels and types of neighbours not summarised yet, in one request, then their types' names. */
  private async learnNeighbours(iris: Iterable<string>): Promise<void> {
    const missing = [...new Set(iris)].filter((i) => !this.summary.has(i)).sort(compareCodePoints);
    if (missing.length === 0) return;
    const found = await this.store.select(missing, [...this.mapper.labelPredicates, ...this.mapper.typePredicates]);
    const typeIris: string[] = [];
    for (const iri of missing) {
      const facts = found.get(iri) ?? [];
      const s = { labelled: this.mapper.pickLabel(this.mapper.labelsOf(facts)) !== undefined, typeIris: this.mapper.typeIrisOf(facts) };
      this.summary.set(iri, s);
      typeIris.push(...s.typeIris);
    }
    await this.learnNames(typeIris);
    for (const iri of missing) {
      const s = this.summary.get(iri)!;
      if (s.labelled) this.types.set(this.idOf(iri), this.mapper.typeName(s.typeIris, this.nameOf));
    }
  }

  async load(id: string): Promise<boolean> {
    if (this.nodes.has(id)) return true;
    const iri = this.iriOf(id);
    const m = this.mapper;
    const out = await this.store.outgoing(iri, m.mapping.language);
    const facts = out.facts.filter((f) => isIri(f.o) || m.inLanguage(f.o)).sort(factOrder);
    const name = m.pickLabel(m.labelsOf(facts));
    if (name === undefined) return false;
    const exclude = [...m.typePredicates, ...m.labelPredicates];
    const inc = await this.store.incoming(iri, exclude, m.mapping.maxIncoming);
    const outLinks = facts.filter((f) => isIri(f.o) && m.role(f.p, true).kind === 'relation');
    const inLinks = [...inc.facts].sort((a, b) => compareCodePoints(a.p, b.p) || compareCodePoints(a.s, b.s)).filter((f) => m.role(f.p, true).kind === 'relation');
    await this.learnNeighbours([...outLinks.map((f) => (f.o as { iri: string }).iri), ...inLinks.map((f) => f.s)]);
    const typeIris = m.typeIrisOf(facts);
    await this.learnNames([...typeIris, ...facts.flatMap((f) => (!isIri(f.o) && f.o.unit ? [f.o.unit] : []))]);

    const aliases = new Set<string>();
    const attrs: Record<string, AttrValue> = {};
    const candidates = new Map<string, AttrValue[]>();
    for (const f of facts) {
      if (isIri(f.o)) continue;
      const role = m.role(f.p, false);
      if (role.kind === 'label' || role.kind === 'alias') {
        if (f.o.value.trim() !== '' && f.o.value.trim() !== name) aliases.add(f.o.value.trim());
      } else if (role.kind === 'description' && f.o.value.trim() !== '') {
        (candidates.get('description') ?? candidates.set('description', []).get('description')!).push({ type: 'string', value: f.o.value.trim() });
      } else if (role.kind === 'attribute' || role.kind === 'relation') {
        const spec = role.kind === 'attribute' ? role : { kind: 'attribute' as const, name: role.name };
        const v = attrValue(f.o, spec, (u) => m.unitName(u, this.nameOf));
        if (v) (candidates.get(spec.name) ?? candidates.set(spec.name, []).get(spec.name)!).push(v);
      }
    }
    // One value per attribute: the first in a fixed order of the values themselves (sources may spell a literal differently).
    for (const key of [...candidates.keys()].sort(compareCodePoints)) {
      const values = candidates.get(key)!.map((v) => [JSON.stringify(v), v] as const).sort((a, b) => compareCodePoints(a[0], b[0]));
      attrs[key] = values[0]![1];
    }
    const source = String(this.describe.source);
    const type = m.typeName(typeIris, this.nameOf);
    this.types.set(id, type);
    this.nodes.set(id, {
      id,
      type,
      name,
      aliases: [...aliases].sort(compareCodePoints),
      attrs,
      meta: { source, url: iri, kb_query: [out.answer, inc.answer] },
    });

    const incident: GraphEdge[] = [];
    const seen = new Set<string>();
    const link = (s: string, p: string, o: string, answer: string): void => {
      const other = s === iri ? o : s;
      if (!this.summary.get(other)?.labelled && other !== iri) return; // a value without a label is no entity
      const edgeId = `${this.idOf(s)} ${this.idOf(p)} ${this.idOf(o)}`;
      if (seen.has(edgeId)) return;
      seen.add(edgeId);
      let edge = this.edgeById.get(edgeId);
      if (!edge) {
        const relation = (m.role(p, true) as { name: string }).name;
        edge = { id: edgeId, source: this.idOf(s), target: this.idOf(o), relation, meta: { source, url: s, evidence: `<${s}> <${p}> <${o}> .`, kb_query: answer } };
        this.edgeById.set(edgeId, edge);
      }
      incident.push(edge);
    };
    for (const f of outLinks) link(iri, f.p, (f.o as { iri: string }).iri, out.answer);
    for (const f of inLinks) link(f.s, f.p, iri, inc.answer);
    this.incidentOf.set(id, incident);
    return true;
  }
}
