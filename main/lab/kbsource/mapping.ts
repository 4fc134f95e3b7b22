// Mappings: data, not code, that say how a vocabulary's facts become sailor.graph/1 nodes and edges: which
// predicates give the label, aliases, type and description, which are relations and which attributes (with
// their datatypes), the language labels are taken in. Built in: Wikidata and DBpedia; others come as a JSON
// file of the same shape (docs/own-knowledge-graph.md, 'Mapping files').
import { z } from 'zod';
import { LabError } from '../base/errors';
import { readJsonFile } from '../store/files';
import { fieldIssues } from '../contract/field-issues';
import { compareCodePoints, localName, Prefixes, snakeLabel, type Fact, type Literal, XSD } from './terms';

export const MAPPING_FORMAT = 'sailor.mapping/1';

const attrSpec = z
  .object({
    name: z.string().min(1).optional(),
    datatype: z.enum(['number', 'date', 'string']).optional(),
    /** A fixed unit for every value (a Wikidata quantity brings its own). */
    unit: z.string().min(1).optional(),
  })
  .strict();

export const mappingSchema = z
  .object({
    format: z.literal(MAPPING_FORMAT),
    name: z.string().min(1),
    /** Labels, aliases and descriptions in this language (BCP 47 tag), or untagged. */
    language: z.string().min(1).default('en'),
    prefixes: z.record(z.string(), z.string().url()).default({}),
    label: z.array(z.string()).min(1),
    alias: z.array(z.string()).default([]),
    description: z.array(z.string()).default([]),
    type: z.array(z.string()).default([]),
    /** Only type IRIs in these namespaces count (DBpedia: its ontology's classes, not YAGO's). */
    typeNamespaces: z.array(z.string()).optional(),
    /** Predicate -> relation name (snake_case). */
    relations: z.record(z.string(), z.string()).default({}),
    /** Predicate -> attribute name, datatype and unit. */
    attributes: z.record(z.string(), attrSpec).default({}),
    /** Type IRI -> type name, over the class's own label. */
    types: z.record(z.string(), z.string()).default({}),
    /** Unit IRI -> unit symbol, over the unit's own label. */
    units: z.record(z.string(), z.string()).default({}),
    ignore: z.array(z.string()).default([]),
    /** Predicates neither mapped nor ignored: kept (named after their local name) or dropped. */
    unmapped: z.enum(['keep', 'drop']).default('keep'),
    /** ... and kept only in these namespaces, when given. */
    keepNamespaces: z.array(z.string()).optional(),
    defaultType: z.string().default('entity'),
    /** Relations read into a node from other nodes (in-links), at most. */
    maxIncoming: z.number().int().min(0).max(100_000).default(200),
    /** Where the data comes from and under which licence: recorded in every graph built from it. */
    source: z.string().optional(),
    licence: z.string().optional(),
    url: z.string().optional(),
  })
  .strict();

export type MappingInput = z.input<typeof mappingSchema>;
export type Mapping = z.output<typeof mappingSchema>;

const COMMON_PREFIXES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: XSD,
  skos: 'http://www.w3.org/2004/02/skos/core#',
  schema: 'http://schema.org/',
  owl: 'http://www.w3.org/2002/07/owl#',
  foaf: 'http://xmlns.com/foaf/0.1/',
};

const WIKIDATA: MappingInput = {
  format: MAPPING_FORMAT,
  name: 'wikidata',
  language: 'en',
  prefixes: { ...COMMON_PREFIXES, wd: 'http://www.wikidata.org/entity/', wdt: 'http://www.wikidata.org/prop/direct/' },
  label: ['rdfs:label'],
  alias: ['skos:altLabel'],
  description: ['schema:description'],
  type: ['wdt:P31'],
  relations: {
    'wdt:P17': 'country',
    'wdt:P19': 'place_of_birth',
    'wdt:P20': 'place_of_death',
    'wdt:P22': 'father',
    'wdt:P25': 'mother',
    'wdt:P26': 'spouse',
    'wdt:P27': 'country_of_citizenship',
    'wdt:P30': 'continent',
    'wdt:P36': 'capital',
    'wdt:P37': 'official_language',
    'wdt:P38': 'currency',
    'wdt:P47': 'shares_border_with',
    'wdt:P50': 'author',
    'wdt:P57': 'director',
    'wdt:P69': 'educated_at',
    'wdt:P106': 'occupation',
    'wdt:P108': 'employer',
    'wdt:P131': 'located_in',
    'wdt:P150': 'contains',
    'wdt:P159': 'headquarters_location',
    'wdt:P166': 'award_received',
    'wdt:P276': 'location',
    'wdt:P279': 'subclass_of',
    'wdt:P361': 'part_of',
    'wdt:P495': 'country_of_origin',
    'wdt:P527': 'has_part',
    'wdt:P800': 'notable_work',
    'wdt:P1376': 'capital_of',
  },
  attributes: {
    'wdt:P569': { name: 'date_of_birth', datatype: 'date' },
    'wdt:P570': { name: 'date_of_death', datatype: 'date' },
    'wdt:P571': { name: 'inception', datatype: 'date' },
    'wdt:P577': { name: 'publication_date', datatype: 'date' },
    'wdt:P580': { name: 'start_time', datatype: 'date' },
    'wdt:P582': { name: 'end_time', datatype: 'date' },
    'wdt:P1082': { name: 'population', datatype: 'number' },
    'wdt:P2044': { name: 'elevation', datatype: 'number' },
    'wdt:P2046': { name: 'area', datatype: 'number' },
    'wdt:P2048': { name: 'height', datatype: 'number' },
    'wdt:P2067': { name: 'mass', datatype: 'number' },
    'wdt:P1128': { name: 'employees', datatype: 'number' },
    'wdt:P1448': { name: 'official_name', datatype: 'string' },
  },
  units: {
    'wd:Q11573': 'm',
    'wd:Q828224': 'km',
    'wd:Q712226': 'km2',
    'wd:Q11570': 'kg',
    'wd:Q4917': 'USD',
    'wd:Q4916': 'EUR',
    'wd:Q11579': 'K',
    'wd:Q25267': '°C',
    'wd:Q577': 'year',
  },
  ignore: ['wdt:P625', 'wdt:P18', 'wdt:P373', 'wdt:P910', 'wdt:P1343', 'wdt:P646', 'wdt:P214', 'wdt:P227', 'wdt:P244', 'wdt:P213', 'wdt:P268', 'wdt:P269', 'wdt:P349', 'wdt:P906', 'wdt:P1006', 'wdt:P950'],
  keepNamespaces: ['wdt:'],
  source: 'Wikidata',
  licence: 'CC0-1.0 (Wikidata data), as the data set states',
  url: 'https://www.wikidata.org/',
};

const DBPEDIA: MappingInput = {
  format: MAPPING_FORMAT,
  name: 'dbpedia',
  language: 'en',
  prefixes: { ...COMMON_PREFIXES, dbr: 'http://dbpedia.org/resource/', dbo: 'http://dbpedia.org/ontology/', dbp: 'http://dbpedia.org/property/' },
  label: ['rdfs:label'],
  alias: ['foaf:name', 'dbo:alias'],
  description: ['rdfs:comment'],
  type: ['rdf:type'],
  typeNamespaces: ['dbo:'],
  relations: { 'dbo:birthPlace': 'place_of_birth', 'dbo:deathPlace': 'place_of_death', 'dbo:country': 'country', 'dbo:capital': 'capital' },
  attributes: {
    'dbo:birthDate': { name: 'date_of_birth', datatype: 'date' },
    'dbo:deathDate': { name: 'date_of_death', datatype: 'date' },
    'dbo:populationTotal': { name: 'population', datatype: 'number' },
    'dbo:areaTotal': { name: 'area', datatype: 'number', unit: 'm2' },
    'dbo:elevation': { name: 'elevation', datatype: 'number', unit: 'm' },
  },
  ignore: ['dbo:wikiPageWikiLink', 'dbo:wikiPageID', 'dbo:wikiPageRevisionID', 'dbo:wikiPageLength', 'dbo:wikiPageExternalLink', 'dbo:thumbnail', 'dbo:abstract', 'dbo:wikiPageRedirects', 'dbo:wikiPageDisambiguates'],
  keepNamespaces: ['dbo:'],
  source: 'DBpedia',
  licence: 'CC BY-SA 3.0 and GFDL (DBpedia), as the data set states',
  url: 'https://www.dbpedia.org/',
};

/** Any vocabulary: rdfs:label and skos:altLabel, rdf:type, rdfs:comment; every other predicate kept, named by its local name. */
const GENERIC: MappingInput = {
  format: MAPPING_FORMAT,
  name: 'rdf',
  language: 'en',
  prefixes: COMMON_PREFIXES,
  label: ['rdfs:label', 'skos:prefLabel'],
  alias: ['skos:altLabel'],
  description: ['rdfs:comment'],
  type: ['rdf:type'],
  ignore: ['owl:sameAs'],
};

export const BUILTIN_MAPPINGS = { wikidata: WIKIDATA, dbpedia: DBPEDIA, rdf: GENERIC } as const;

/** A mapping checked by its schema; `where` names the file in errors. */
export function parseMapping(value: unknown, where: string): Mapping {
  const parsed = mappingSchema.safeParse(value);
  if (!parsed.success) throw new LabError('bad_input', `${where}: ${fieldIssues(parsed.error).map((i) => `${i.path || '(mapping)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** 'wikidata', 'dbpedia' or a mapping file's path. */
export function loadMapping(nameOrFile: string): Mapping {
  const builtin = (BUILTIN_MAPPINGS as Record<string, MappingInput>)[nameOrFile];
  return builtin ? parseMapping(builtin, `mapping ${nameOrFile}`) : parseMapping(readJsonFile(nameOrFile), nameOrFile);
}

export type Role = { kind: 'label' | 'alias' | 'description' | 'type' | 'ignore' } | { kind: 'relation'; name: string } | { kind: 'attribute'; name: string; datatype?: 'number' | 'date' | 'string'; unit?: string };

const NUMERIC = new Set(['integer', 'decimal', 'double', 'float', 'int', 'long', 'short', 'nonNegativeInteger', 'positiveInteger', 'negativeInteger', 'nonPositiveInteger', 'unsignedInt', 'unsignedLong'].map((t) => XSD + t));
const DATES = new Set(['date', 'dateTime', 'gYear', 'gYearMonth', 'dateTimeStamp'].map((t) => XSD + t));

/** A mapping made ready: IRIs expanded, each predicate's role looked up once. */
export class Mapper {
  readonly prefixes: Prefixes;
  private readonly roles = new Map<string, Role>();
  private readonly fixed = new Map<string, Role>();
  private readonly keep: string[] | undefined;
  private readonly typeNs: string[] | undefined;
  readonly typePredicates: string[];
  readonly labelPredicates: string[];
  private readonly typeNames = new Map<string, string>();
  private readonly unitNames = new Map<string, string>();

  constructor(readonly mapping: Mapping) {
    this.prefixes = new Prefixes(mapping.prefixes);
    const iri = (name: string, field: string): string => {
      const full = this.prefixes.expand(name);
      if (full === undefined) throw new LabError('bad_input', `mapping ${mapping.name}: ${field}: '${name}' is neither an IRI nor a name with a known prefix`);
      return full;
    };
    const set = (names: string[], field: string, role: Role): void => names.forEach((n) => this.fixed.set(iri(n, field), role));
    set(mapping.ignore, 'ignore', { kind: 'ignore' });
    for (const [p, name] of Object.entries(mapping.relations)) this.fixed.set(iri(p, 'relations'), { kind: 'relation', name: snakeLabel(name) });
    for (const [p, s] of Object.entries(mapping.attributes)) this.fixed.set(iri(p, 'attributes'), { kind: 'attribute', name: s.name ?? snakeLabel(localName(iri(p, 'attributes'))), datatype: s.datatype, unit: s.unit });
    set(mapping.description, 'description', { kind: 'description' });
    set(mapping.alias, 'alias', { kind: 'alias' });
    set(mapping.type, 'type', { kind: 'type' });
    set(mapping.label, 'label', { kind: 'label' });
    this.typePredicates = mapping.type.map((n) => iri(n, 'type'));
    this.labelPredicates = mapping.label.map((n) => iri(n, 'label'));
    this.keep = mapping.keepNamespaces?.map((n) => iri(n, 'keepNamespaces'));
    this.typeNs = mapping.typeNamespaces?.map((n) => iri(n, 'typeNamespaces'));
    for (const [t, name] of Object.entries(mapping.types)) this.typeNames.set(iri(t, 'types'), snakeLabel(name));
    for (const [u, name] of Object.entries(mapping.units)) this.unitNames.set(iri(u, 'units'), name);
  }

  /** What a predicate is for; 'ignore' for one the mapping drops. */
  role(p: string, objectIsIri: boolean): Role {
    const fixed = this.fixed.get(p);
    if (fixed) return fixed;
    const key = `${objectIsIri ? 'i' : 'l'}${p}`;
    let role = this.roles.get(key);
    if (!role) {
      const kept = this.mapping.unmapped === 'keep' && (!this.keep || this.keep.some((ns) => p.startsWith(ns)));
      role = !kept ? { kind: 'ignore' } : objectIsIri ? { kind: 'relation', name: snakeLabel(localName(p)) } : { kind: 'attribute', name: snakeLabel(localName(p)) };
      this.roles.set(key, role);
    }
    return role;
  }

  /** A literal in the mapping's language (or untagged); others are skipped. */
  inLanguage(lit: Literal): boolean {
    if (!lit.lang) return true;
    const lang = lit.lang.toLowerCase();
    const want = this.mapping.language.toLowerCase();
    return lang === want || lang.startsWith(`${want}-`);
  }

  /** Labels first in the exact language, then untagged; ties in code-point order. */
  pickLabel(values: Literal[]): string | undefined {
    const ok = values.filter((v) => this.inLanguage(v) && v.value.trim() !== '');
    ok.sort((a, b) => Number(!a.lang) - Number(!b.lang) || compareCodePoints(a.value, b.value));
    return ok[0]?.value.trim();
  }

  /** The label facts of a node; its name is pickLabel of these. */
  labelsOf(facts: readonly Fact[]): Literal[] {
    return facts.filter((f) => !('iri' in f.o) && this.fixed.get(f.p)?.kind === 'label').map((f) => f.o as Literal);
  }

  /** Type IRIs the mapping counts, in code-point order. */
  typeIrisOf(facts: readonly Fact[]): string[] {
    const out = new Set<string>();
    for (const f of facts) {
      if (!('iri' in f.o) || this.fixed.get(f.p)?.kind !== 'type') continue;
      if (this.typeNs && !this.typeNs.some((ns) => (f.o as { iri: string }).iri.startsWith(ns))) continue;
      out.add(f.o.iri);
    }
    return [...out].sort(compareCodePoints);
  }

  /** The node type: the first type the mapping names, else the first type's own label, else its local name. */
  typeName(typeIris: readonly string[], labelOf: (iri: string) => string | undefined): string {
    for (const t of typeIris) {
      const named = this.typeNames.get(t);
      if (named) return named;
    }
    const first = typeIris[0];
    if (first === undefined) return snakeLabel(this.mapping.defaultType);
    return snakeLabel(labelOf(first) ?? localName(first));
  }

  unitName(unitIri: string, labelOf: (iri: string) => string | undefined): string {
    return this.unitNames.get(unitIri) ?? labelOf(unitIri) ?? localName(unitIri);
  }

  /** Whether a literal's datatype makes it a number or a date when the mapping does not say. */
  static datatypeOf(lit: Literal): 'number' | 'date' | 'string' {
    if (lit.datatype && NUMERIC.has(lit.datatype)) return 'number';
    if (lit.datatype && DATES.has(lit.datatype)) return 'date';
    return 'string';
  }
}
