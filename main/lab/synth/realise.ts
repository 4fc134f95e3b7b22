// The realiser (docs/pipeline.md, 'Questions and verification'): turns the relative clauses the constraints and
// relations are stated in ("that is located in Peru", "that was founded in the 1990s", "that is landlocked",
// "that is a currency of the country") into the noun phrases a person writes ("a landlocked country", "a city
// in Peru founded in the 1990s", "a currency of the country"). The rewrites are the usual English reductions,
// so the meaning of each clause is unchanged:
//   - an adjective moves before the noun ("landlocked", a region's demonym: "a South American country");
//   - "an X that is an X of Y" says the noun once: "an X of Y" (the tautology the template wrote);
//   - "that/who + be + participle or preposition" drops the pronoun and the verb ("founded in …", "in Peru");
//   - "that + verb-s" becomes a participle ("bordering Peru"), "that has" becomes "with", "that has no" "without";
//   - the rest stays a relative clause ("whose capital is …", "where … was born", "that is the capital of …").
// A noun phrase carries at most two "that" clauses; a third condition is joined as a reduced phrase or,
// when none applies, rendered by the caller as a sentence of its own.
import { article, joinAnd } from './lexicon';

/** One clause after reduction: where it goes in the noun phrase. */
export type Modifier =
  | { kind: 'pre'; text: string } // before the noun
  | { kind: 'head'; text: string } // replaces the noun ("official language of Peru")
  | { kind: 'post'; text: string; pred: string } // after the noun, no pronoun; `pred` is the finite form
  | { kind: 'rel'; text: string; pred?: string }; // a relative clause; `pred` when it can be a predicate

const SUBJECT_VERB = /^(?!(?:the|a|an|another|this|its|their)$)(?:is|was|are|were|has|had|have|became|died|used|[a-z]+s|[a-z]+ed)$/;
const PARTICIPLE = /^(?:\w+ed|born|known|built|written|spoken|drawn|given|held|made|run|found|seen|grown|worn|sworn|shown|won|sung)$/;

/** Present participle of a third-person verb: borders -> bordering, lies -> lying, spans -> spanning. */
export function participle(verb: string): string {
  const irregular: Record<string, string> = { lies: 'lying', spans: 'spanning', runs: 'running', dies: 'dying', has: 'having', is: 'being' };
  if (irregular[verb]) return irregular[verb]!;
  const stem = /(ss|x|z|ch|sh)es$/.test(verb) ? verb.slice(0, -2) : verb.replace(/ies$/, 'y').replace(/s$/, '');
  if (/ee$/.test(stem)) return `${stem}ing`;
  if (/[^aeiou]e$/.test(stem)) return `${stem.slice(0, -1)}ing`;
  return `${stem}ing`;
}

/** The finite form of a participle phrase the lexicon writes ("containing Lima" -> "contains Lima"). */
const FINITE: Record<string, string> = { bordering: 'borders', containing: 'contains', including: 'includes', serving: 'serves', using: 'uses', crossing: 'crosses' };
const VERBS_S = /^(borders|contains|includes|flows|serves|uses|speaks|hosts|owns|connects|crosses|drains|shares|spans|operates|follows|precedes|replaces|neighbours|neighbors|joins|rises|runs|empties|originates|discharges|belongs|trades|administers|governs|covers)$/;

/** Adjectives of a yes/no attribute: "that is landlocked" -> "landlocked", "that is not landlocked" -> "coastal". */
const NEGATED_ADJECTIVES: Record<string, string> = { landlocked: 'coastal' };
const ADJECTIVES = /^(landlocked|coastal|independent|extinct|active|endangered)$/;

const CONTINENT_DEMONYMS: Record<string, string> = {
  africa: 'African',
  america: 'American',
  americas: 'American',
  asia: 'Asian',
  europe: 'European',
  oceania: 'Oceanian',
  caribbean: 'Caribbean',
  melanesia: 'Melanesian',
  micronesia: 'Micronesian',
  polynesia: 'Polynesian',
  antarctic: 'Antarctic',
};
const DIRECTIONS: Record<string, string> = {
  northern: 'North',
  southern: 'South',
  eastern: 'East',
  western: 'West',
  central: 'Central',
  middle: 'Central',
  north: 'North',
  south: 'South',
  east: 'East',
  west: 'West',
  'south-eastern': 'Southeast',
  southeast: 'Southeast',
  'south-western': 'Southwest',
  'north-eastern': 'Northeast',
  'north-western': 'Northwest',
};

/** "South America" -> "South American", "Northern Africa" -> "North African", "Oceania" -> "Oceanian"; else null. */
export function demonym(region: string): string | null {
  const ws = region.trim().split(/\s+/);
  const last = CONTINENT_DEMONYMS[ws[ws.length - 1]!.toLowerCase()];
  if (!last || ws.length > 2) return null;
  if (ws.length === 1) return last;
  const dir = DIRECTIONS[ws[0]!.toLowerCase()];
  return dir ? `${dir} ${last}` : null;
}

/** String attributes that read better in a form of their own: `whose <words> is "<value>"`. */
function categorical(words: string, value: string, noun: string): Modifier | null {
  const v = value.trim();
  switch (words) {
    case 'settlement kind':
      return { kind: 'post', text: `classed as ${article(v)} ${v}`, pred: `is classed as ${article(v)} ${v}` };
    case 'airport size':
      return { kind: 'pre', text: v.toLowerCase() === 'medium' ? 'medium-sized' : v.toLowerCase() };
    case 'category':
      // an element category names a kind of the noun: "a transition metal"
      return noun === 'chemical element' ? { kind: 'head', text: v.toLowerCase() } : null;
    case 'phase':
      return { kind: 'rel', text: `that is a ${v.toLowerCase()} at room temperature`, pred: `is a ${v.toLowerCase()} at room temperature` };
    case 'utc offset':
      return { kind: 'post', text: `at ${v}`, pred: `is at ${v}` };
    default:
      return null;
  }
}

/** Does the phrase `rel` name the noun itself ("official language" for a language, "time zone" for a time zone)? */
function namesNoun(rel: string, noun: string): boolean {
  return rel === noun || rel.endsWith(` ${noun}`);
}

/** Where one clause goes in a noun phrase about a `noun`. */
export function reduceClause(clause: string, noun: string): Modifier {
  const c = clause.trim();
  let m: RegExpExecArray | null;
  if ((m = /^that is (not )?(\w+)$/.exec(c)) && ADJECTIVES.test(m[2]!)) {
    const adj = m[1] ? (NEGATED_ADJECTIVES[m[2]!] ?? `non-${m[2]}`) : m[2]!;
    return { kind: 'pre', text: adj };
  }
  if ((m = /^that lies in (.+)$/.exec(c))) {
    const d = demonym(m[1]!);
    return d ? { kind: 'pre', text: d } : { kind: 'post', text: `in ${m[1]}`, pred: `lies in ${m[1]}` };
  }
  if ((m = /^that lies ((?:south|north|east|west) of .+)$/.exec(c))) return { kind: 'post', text: m[1]!, pred: `lies ${m[1]}` };
  if ((m = /^that lies (.+)$/.exec(c))) return { kind: 'post', text: `lying ${m[1]}`, pred: `lies ${m[1]}` };
  if ((m = /^that is known by a name (beginning with|containing the letters) (".+")$/.exec(c)))
    return { kind: 'rel', text: `whose name ${m[1] === 'beginning with' ? 'begins with' : 'contains'} ${m[2]}` };
  if ((m = /^(?:that|who) (?:is|was) (?:an?|the) ([\w -]+?) of (.+)$/.exec(c)) && namesNoun(m[1]!, noun)) return { kind: 'head', text: `${m[1]} of ${m[2]}` };
  if ((m = /^(?:that|who) (is|was) located in (.+)$/.exec(c))) return { kind: 'post', text: `in ${m[2]}`, pred: `${m[1]} located in ${m[2]}` };
  if ((m = /^(?:that|who) (is|was|are|were) ((\S+) .+)$/.exec(c)) && PARTICIPLE.test(m[3]!)) return { kind: 'post', text: m[2]!, pred: `${m[1]} ${m[2]}` };
  if ((m = /^that is ((?:between|behind|ahead of) UTC.+)$/.exec(c))) return { kind: 'post', text: m[1]!, pred: `is ${m[1]}` };
  if ((m = /^that has no (.+)$/.exec(c))) return { kind: 'post', text: `without ${m[1]}`, pred: `has no ${m[1]}` };
  if ((m = /^that has (.+)$/.exec(c))) return { kind: 'post', text: `with ${m[1]}`, pred: `has ${m[1]}` };
  if ((m = /^that (\w+) (.+)$/.exec(c)) && VERBS_S.test(m[1]!)) return { kind: 'post', text: `${participle(m[1]!)} ${m[2]}`, pred: `${m[1]} ${m[2]}` };
  if ((m = /^((?:used|served|crossed) by .+)$/.exec(c))) return { kind: 'post', text: c, pred: `is ${m[1]}` };
  if ((m = /^(\w+ing) (.+)$/.exec(c)) && FINITE[m[1]!]) return { kind: 'post', text: c, pred: `${FINITE[m[1]!]} ${m[2]}` };
  if ((m = /^with (.+)$/.exec(c))) return { kind: 'post', text: c, pred: `has ${m[1]}` };
  if ((m = /^whose (.+?) is "(.+)"$/.exec(c))) {
    const special = categorical(m[1]!, m[2]!, noun);
    if (special) return special;
  }
  // a predicate only when the pronoun is the subject ("that borders Peru"), not the object ("that Peru borders")
  if ((m = /^(?:that|who) ((\S+).*)$/.exec(c)) && SUBJECT_VERB.test(m[2]!)) return { kind: 'rel', text: c, pred: m[1]! };
  return { kind: 'rel', text: c };
}

export interface NounPhrase {
  /** The whole phrase: "a landlocked country in Africa whose capital is Lima". */
  text: string;
  /** The noun as the phrase states it ("country", or the head that replaced it: "official language of Peru"). */
  head: string;
  /** Clauses that did not fit (a third "that" clause): the caller says them in a sentence of their own. */
  overflow: string[];
  /** The phrase ends in a comma-set modifier: a predicate after it needs a closing comma. */
  commas: boolean;
}

const MAX_THAT = 2;
/** A noun phrase with modifiers of its own (a clause or phrase after its noun). */
const COMPLEX_NP = /\b(whose|that|who|where|with|in|by|lying|bordering|using|serving|founded|introduced|born)\b|,/;
/** Nouns for people take "who", not "that". */
export const PEOPLE = /^(person|people|human|artist|writer|poet|scientist|politician|athlete|actor|musician)$/;

/** Orders and joins the modifiers of one noun: adjectives, the noun (or a head), reduced phrases, relative clauses. */
export function nounPhrase(det: string, noun: string, clauses: string[]): NounPhrase {
  const mods = clauses.map((c) => reduceClause(c, noun));
  const pre = mods.filter((x) => x.kind === 'pre').map((x) => x.text);
  const joined = joinHeads(mods.filter((x) => x.kind === 'head').map((x) => x.text), noun);
  const { extra } = joined;
  const posts = mergePosts(mods.filter((x) => x.kind === 'post').map((x) => x.text));
  const who = PEOPLE.test(noun);
  const rels = [...extra, ...mods.filter((x) => x.kind === 'rel').map((x) => x.text)].map((r) => (who ? r.replace(/^that /, 'who ') : r));
  const kept: string[] = [];
  const overflow: string[] = [];
  let thats = posts.filter((p) => /^that /.test(p)).length;
  for (const r of rels) {
    if (/^(that|who) /.test(r)) {
      if (thats >= MAX_THAT) {
        overflow.push(r);
        continue;
      }
      thats++;
    }
    kept.push(r);
  }
  // "X of Y" replaces the noun, unless Y ends in modifiers of its own and the noun has some too: "an official
  // language of a country whose name begins with "M" whose name …" would give the language's clause to the
  // country. Then "X of Y" closes the phrase as an appositive: "a language whose name …, an official language of …"
  const appositive = joined.head !== noun && (kept.length > 0 || posts.length > 0) && COMPLEX_NP.test(joined.objects);
  const head = appositive ? noun : joined.head;
  const core = [...pre, head].join(' ');
  const detText = det === 'a' || det === 'an' ? article(core) : det;
  // relative clauses right after the noun (a clause after a phrase would attach to the phrase's noun: "with
  // Lima as a capital whose name …"); after an "X of Y" head, or with several phrases, commas keep each
  // phrase on its noun
  const relText = kept.length ? ` ${joinAnd(kept)}` : '';
  const setOff = posts.length > 1 || kept.length > 0 || head !== noun;
  const postText = posts.length ? `${setOff ? ',' : ''} ${posts.join(', ')}` : '';
  const apposText = appositive ? `, ${article(joined.head)} ${joined.head}` : '';
  const text = `${detText ? `${detText} ` : ''}${core}${relText}${postText}${apposText}`;
  return { text, head, overflow, commas: (posts.length > 0 && setOff) || appositive };
}

/**
 * Heads "official language of Peru" and "official language of Chile" say the relation once: "official language
 * of both Peru and Chile"; heads of different relations keep the first and say the others as clauses.
 */
function joinHeads(heads: string[], noun: string): { head: string; objects: string; extra: string[] } {
  if (!heads.length) return { head: noun, objects: '', extra: [] };
  const split = (h: string): [string, string] => {
    const i = h.indexOf(' of ');
    return [h.slice(0, i), h.slice(i + 4)];
  };
  const [rel] = split(heads[0]!);
  // "of both another country and another country" says nothing: a repeated object is said in a clause of its own
  const same: string[] = [];
  const others: string[] = [];
  for (const h of heads) {
    const [r, o] = split(h);
    if (r === rel && !same.includes(o)) same.push(o);
    else others.push(`that is ${r === rel ? 'also ' : ''}${article(h)} ${h}`);
  }
  const objects = same.length === 1 ? same[0]! : same.length === 2 ? `both ${same[0]} and ${same[1]}` : joinAnd(same);
  return { head: `${rel} of ${objects}`, objects, extra: others };
}

/** Phrases of one relation said once: "used by a country" + "used by Peru" -> "used by a country and Peru". */
function mergePosts(posts: string[]): string[] {
  const out: string[] = [];
  const groups = new Map<string, string[]>();
  for (const p of posts) {
    // a participle with its preposition ("spoken in", "used by") or a bare present participle ("bordering")
    const m = /^(\w+ing|\w+ (?:in|by|through|into|to)) (.+)$/.exec(p);
    if (!m || !(/ing$/.test(m[1]!) || PARTICIPLE.test(m[1]!.split(' ')[0]!))) {
      out.push(p);
      continue;
    }
    const g = groups.get(m[1]!);
    if (g) g.push(m[2]!);
    else {
      groups.set(m[1]!, [m[2]!]);
      out.push(`\u0000${m[1]}`);
    }
  }
  return out.map((p) => (p.startsWith('\u0000') ? `${p.slice(1)} ${joinAnd(groups.get(p.slice(1))!)}` : p));
}
