// A Wikidata-shaped test set: entities in Wikidata's JSON dump layout (labels, aliases and descriptions by
// language, claims with mainsnak/datavalue/rank), one per line inside a JSON array, as Wikidata publishes it.
// Countries (Q6256), cities (Q515) and humans (Q5), with populations, areas in km² (unit Q712226), dates of
// day and year precision, and the ranks simplification must honour (preferred over normal, deprecated dropped).

type Claim = Record<string, unknown>;

const WD = 'http://www.wikidata.org/entity/';

function statement(id: string, p: string, datatype: string, datavalue: Record<string, unknown>, rank = 'normal'): Claim {
  return { mainsnak: { snaktype: 'value', property: p, datatype, datavalue }, type: 'statement', id: `${id}$${p}-${rank}`, rank };
}
const item = (id: string, p: string, q: string, rank?: string): Claim =>
  statement(id, p, 'wikibase-item', { value: { 'entity-type': 'item', 'numeric-id': Number(q.slice(1)), id: q }, type: 'wikibase-entityid' }, rank);
const quantity = (id: string, p: string, amount: number, unit = '1', rank?: string): Claim =>
  statement(id, p, 'quantity', { value: { amount: `+${amount}`, unit: unit === '1' ? '1' : WD + unit }, type: 'quantity' }, rank);
const time = (id: string, p: string, date: string, precision: number): Claim =>
  statement(id, p, 'time', { value: { time: `+${date}T00:00:00Z`, timezone: 0, before: 0, after: 0, precision, calendarmodel: `${WD}Q1985727` }, type: 'time' });

function entity(id: string, label: string, claims: Claim[], extra: { aliases?: string[]; description?: string } = {}): Record<string, unknown> {
  const grouped: Record<string, Claim[]> = {};
  for (const c of claims) (grouped[(c.mainsnak as { property: string }).property] ??= []).push(c);
  return {
    type: 'item',
    id,
    labels: { en: { language: 'en', value: label }, de: { language: 'de', value: `${label} (de)` } },
    descriptions: extra.description ? { en: { language: 'en', value: extra.description } } : {},
    aliases: extra.aliases ? { en: extra.aliases.map((value) => ({ language: 'en', value })) } : {},
    claims: grouped,
    sitelinks: {},
  };
}

const NAMES = ['Arvel', 'Borin', 'Cestia', 'Dunmar', 'Elvora', 'Fenwick', 'Galdor', 'Hesper', 'Istra', 'Jorvik', 'Kelmar', 'Lunet'];
const name = (i: number): string => `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length) + 1}` : ''}`;

/** The entities: 3 classes, `countries` countries, 4 cities each, 3 humans per city. Ids from Q1000. */
export function wikidataEntities(countries = 6): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [entity('Q5', 'human', []), entity('Q6256', 'country', []), entity('Q515', 'city', [])];
  let next = 1000;
  const countryIds: string[] = [];
  for (let c = 0; c < countries; c++) countryIds.push(`Q${next++}`);
  countryIds.forEach((id, c) => {
    const neighbour = countryIds[(c + 1) % countryIds.length]!;
    out.push(
      entity(id, `${name(c)}land`, [item(id, 'P31', 'Q6256'), item(id, 'P47', neighbour), quantity(id, 'P1082', 1_000_000 + c * 12_345), quantity(id, 'P2046', 5000 + c * 101, 'Q712226'), time(id, 'P571', `${1800 + c * 7}-01-01`, 9)], {
        aliases: [`Republic of ${name(c)}`],
        description: `country number ${c}`,
      }),
    );
    for (let k = 0; k < 4; k++) {
      const city = `Q${next++}`;
      const claims = [
        item(city, 'P31', 'Q515'),
        item(city, 'P17', id),
        // Two populations: the preferred one is the truthy value; a deprecated country is dropped.
        quantity(city, 'P1082', 50_000 + k * 1000 + c, '1', 'preferred'),
        quantity(city, 'P1082', 1, '1', 'normal'),
        item(city, 'P17', countryIds[(c + 2) % countryIds.length]!, 'deprecated'),
        quantity(city, 'P2044', 100 + k * 10 + c, 'Q11573'),
      ];
      out.push(entity(city, `${name(c * 4 + k + 3)}burg`, claims));
      for (let h = 0; h < 3; h++) {
        const person = `Q${next++}`;
        const day = `${1900 + c * 3 + k}-${String(1 + h).padStart(2, '0')}-${String(10 + k).padStart(2, '0')}`;
        out.push(
          entity(person, `${name(h + k)} ${name(c + 5)}son ${person}`, [item(person, 'P31', 'Q5'), item(person, 'P19', city), item(person, 'P27', id), time(person, 'P569', day, 11)], {
            aliases: h === 0 ? [`Dr ${name(c + 5)}son ${person}`] : [],
          }),
        );
      }
    }
  });
  return out;
}

/** The dump's text: '[', one entity per line with a trailing comma but the last, ']'. */
export function wikidataDump(entities: Record<string, unknown>[]): string {
  return `[\n${entities.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`;
}
