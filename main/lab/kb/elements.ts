// Chemical elements from node-periodic-table (properties, discoverer, namer) and periodic-table
// (discovery year). Discoverers become person nodes, merged with WordNet's person when the name matches,
// so an element links into the people, occupations and countries WordNet knows.
import type { AttrValue } from '../formats/index';
import type { KbBuilder, Provenance } from './builder';
import { surnameKey, type KbContext } from './context';
import type { KbSources } from './sources';
import { isoYear, slug } from './text';

const num = (value: number | null | undefined, unit?: string): AttrValue | undefined =>
  value === null || value === undefined || !Number.isFinite(value) ? undefined : unit ? { type: 'number', value, unit } : { type: 'number', value };
// Some fields mix types across elements (oxidation states "2, 3" or 2): text is what they mean.
const str = (value: string | number | null | undefined): AttrValue | undefined =>
  value === null || value === undefined || value === '' ? undefined : { type: 'string', value: String(value) };

export type DiscovererKind = 'person' | 'organization' | 'none';

/** Organisations discover the late elements; eras and places ("Ancient Egypt", "5000 BC") are not agents. */
export function classifyDiscoverer(text: string): DiscovererKind {
  if (/\bBC\b|\bBCE\b|ancient|unknown|\bAge\b|Middle East|^India$|^China$/i.test(text)) return 'none';
  if (/^Isotopes of /i.test(text)) return 'none';
  if (/Laboratory|Institute|Research|Gesellschaft|Centre|Center|RIKEN|University/i.test(text)) return 'organization';
  return 'person';
}

/** "Thomas Thomson (chemist)" -> "Thomas Thomson". */
export function cleanAgentName(text: string): string {
  return text.replace(/\s*\(.*?\)\s*/g, ' ').trim();
}

/** A person node for a name: WordNet's when the full name, or surname and first initial, match one person. */
function ensurePerson(b: KbBuilder, ctx: KbContext, name: string, prov: Provenance): string {
  const byName = ctx.persons.unique(name);
  const sk = surnameKey(name);
  const id = byName ?? (sk ? ctx.personsBySurname.unique(sk) : undefined);
  if (id) {
    b.addAliases(id, [name]);
    b.cite(id, prov);
    return id;
  }
  const own = `person:${slug(name)}`;
  b.addNode({ id: own, type: 'person', name }, prov);
  ctx.persons.add(name, own);
  return own;
}

function ensureAgent(b: KbBuilder, ctx: KbContext, text: string, prov: Provenance): string | undefined {
  const kind = classifyDiscoverer(text);
  if (kind === 'none') return undefined;
  const name = cleanAgentName(text);
  if (kind === 'person') return ensurePerson(b, ctx, name, prov);
  const id = `organization:${slug(name)}`;
  b.addNode({ id, type: 'organization', name }, prov);
  return id;
}

export function addElements(b: KbBuilder, ctx: KbContext, src: KbSources): void {
  const ptByNumber = new Map(src.pt.map((e) => [e.atomicNumber, e]));
  for (const e of src.npt) {
    const id = `element:${e.number}`;
    const prov = { source: 'node-periodic-table', url: `kb://node-periodic-table/${e.number}` };
    const pt = ptByNumber.get(e.number);
    const year = typeof pt?.yearDiscovered === 'number' ? isoYear(pt.yearDiscovered) : undefined;
    b.addNode(
      {
        id,
        type: 'chemical_element',
        name: e.name,
        aliases: [e.symbol],
        attrs: {
          atomic_number: num(e.number),
          symbol: str(e.symbol),
          atomic_mass: num(e.atomic_mass, 'u'),
          category: str(e.category),
          phase: str(e.phase),
          period: num(e.period),
          melting_point: num(e.melt, 'K'),
          boiling_point: num(e.boil, 'K'),
          electronegativity: num(e.electronegativity_pauling, 'Pauling'),
          appearance: str(e.appearance),
          description: str(e.summary),
        },
      },
      prov,
    );
    if (pt) {
      const ptProv = { source: 'periodic-table', url: `kb://periodic-table/${e.number}` };
      b.setAttr(id, 'discovery_year', year ? { type: 'date', value: year } : undefined, ptProv);
      if (!year && typeof pt.yearDiscovered === 'string') b.setAttr(id, 'discovery_era', str(pt.yearDiscovered), ptProv);
      b.setAttr(id, 'oxidation_states', str(pt.oxidationStates), ptProv);
    }
    const when = year ? ` in ${Number(year)}` : '';
    if (e.category && !/^unknown/.test(e.category)) {
      // The category ("transition metal") as a node: it links elements to each other.
      const cat = `element_category:${slug(e.category)}`;
      b.addNode({ id: cat, type: 'element_category', name: e.category }, { source: 'node-periodic-table', url: `kb://node-periodic-table/category/${slug(e.category)}` });
      b.addEdge(id, 'in_category', cat, { ...prov, evidence: `${e.name} (${e.symbol}) is a ${e.category}.` });
    }
    if (e.discovered_by) {
      const agent = ensureAgent(b, ctx, e.discovered_by, prov);
      if (agent) b.addEdge(id, 'discovered_by', agent, { ...prov, evidence: `${e.name} (${e.symbol}) was discovered by ${cleanAgentName(e.discovered_by)}${when}.` });
    }
    if (e.named_by) {
      const agent = ensureAgent(b, ctx, e.named_by, prov);
      if (agent) b.addEdge(id, 'named_by', agent, { ...prov, evidence: `${e.name} (${e.symbol}) was named by ${cleanAgentName(e.named_by)}.` });
    }
  }
}
