// A small invented world as a sailor.graph/1 graph, for tests and benchmarks of the synthesis pipeline
// when the bundled knowledge base is not wanted: countries, cities, rivers, languages, currencies, people
// and regions with typed attributes and cyclic relations. Deterministic for a given seed and size.
import { GRAPH_FORMAT, type Graph, type GraphEdge, type GraphNode } from '../../main/lab/formats';
import { createRng } from '../../main/lab/util/rng';

const SYLLABLES = ['ka', 'lo', 'mi', 'ran', 'to', 'vel', 'sa', 'nor', 'bi', 'du', 'fen', 'gra', 'hil', 'jun', 'kor', 'lem', 'mar', 'nev', 'os', 'pil', 'qua', 'ris', 'tal', 'ur', 'zen'];

export function fixtureGraph(opts: { seed?: number; countries?: number } = {}): Graph {
  const rng = createRng(opts.seed ?? 11);
  const nCountries = opts.countries ?? 24;
  const names = new Set<string>();
  const word = (): string => {
    for (;;) {
      const k = 2 + rng.int(2);
      let w = '';
      for (let i = 0; i < k; i++) w += rng.pick(SYLLABLES);
      w = w[0]!.toUpperCase() + w.slice(1);
      if (!names.has(w.toLowerCase())) {
        names.add(w.toLowerCase());
        return w;
      }
    }
  };
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const node = (type: string, name: string, attrs: GraphNode['attrs'], aliases: string[] = []): GraphNode => {
    const n: GraphNode = { id: `n${nodes.length + 1}`, type, name, aliases, attrs, meta: {} };
    nodes.push(n);
    return n;
  };
  const edge = (s: GraphNode, relation: string, t: GraphNode): void => {
    edges.push({ id: `e${edges.length + 1}`, source: s.id, target: t.id, relation, meta: {} });
  };
  const date = (lo: number, hi: number): string => {
    const y = lo + rng.int(hi - lo + 1);
    const yyyy = String(y).padStart(4, '0'); // sailor.graph/1 dates have four-digit years
    return rng.next() < 0.5 ? yyyy : `${yyyy}-${String(1 + rng.int(12)).padStart(2, '0')}-${String(1 + rng.int(28)).padStart(2, '0')}`;
  };

  const regions = Array.from({ length: 4 }, () => node('region', `${word()} Basin`, {}));
  const languages = Array.from({ length: 8 }, () => node('language', `${word()}ish`, { speakers: { type: 'number', value: 1e5 + rng.int(5e7), unit: 'people' } }));
  const currencies = Array.from({ length: 10 }, () => node('currency', `${word()} mark`, { introduced: { type: 'date', value: date(1800, 2010) } }));
  const countries: GraphNode[] = [];
  const cities: GraphNode[] = [];
  for (let i = 0; i < nCountries; i++) {
    const name = word();
    const c = node(
      'country',
      name,
      {
        population: { type: 'number', value: 2e5 + rng.int(9e7), unit: 'people' },
        area: { type: 'number', value: 1000 + rng.int(2e6), unit: 'km2' },
        independence: { type: 'date', value: date(1800, 1995) },
      },
      rng.next() < 0.3 ? [`Republic of ${name}`] : [],
    );
    countries.push(c);
    edge(c, 'in_region', rng.pick(regions));
    edge(c, 'official_language', rng.pick(languages));
    if (rng.next() < 0.3) edge(c, 'official_language', rng.pick(languages));
    edge(c, 'currency', rng.pick(currencies));
    const nCities = 2 + rng.int(3);
    for (let j = 0; j < nCities; j++) {
      const city = node('city', word(), {
        population: { type: 'number', value: 1e4 + rng.int(5e6), unit: 'people' },
        founded: { type: 'date', value: date(300, 1900) },
      });
      cities.push(city);
      edge(city, 'located_in', c);
      if (j === 0) edge(city, 'capital_of', c);
    }
  }
  for (let i = 0; i < countries.length; i++) {
    for (let k = 0; k < 2; k++) {
      const j = rng.int(countries.length);
      if (j !== i) edge(countries[i]!, 'borders', countries[j]!);
    }
  }
  for (let i = 0; i < nCountries; i++) {
    const r = node('river', `${word()} River`, { length: { type: 'number', value: 50 + rng.int(4000), unit: 'km' } });
    const a = rng.pick(countries);
    const b = rng.pick(countries);
    edge(r, 'flows_through', a);
    if (b !== a) edge(r, 'flows_through', b);
    edge(r, 'passes', rng.pick(cities));
  }
  for (let i = 0; i < nCountries * 2; i++) {
    const first = word();
    const p = node('person', `${first} ${word()}`, { birth_date: { type: 'date', value: date(1700, 1990) } }, rng.next() < 0.3 ? [first] : []);
    edge(p, 'born_in', rng.pick(cities));
    if (rng.next() < 0.5) edge(p, 'citizen_of', rng.pick(countries));
  }
  return { format: GRAPH_FORMAT, nodes, edges, info: { fixture: true, seed: opts.seed ?? 11 } };
}
