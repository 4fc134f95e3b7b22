// A compact in-memory triple index for big dumps. N3.js's Store keeps about 1.4 GB per million triples
// (bench/speed/kb-dump.ts); this keeps each distinct IRI and literal once, as UTF-8 bytes in a string pool, and the
// triples as three Int32Arrays with an index by subject and one by object (counting sort, built once after
// loading).
import { StringPool } from './string-pool';
import { compareCodePoints, type Fact, type IncomingFact, type Literal, type Term } from './terms';

const SEP = '\u0001';

class Int32Vec {
  data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(Math.max(1024, Math.ceil(this.data.length * 1.5)));
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }

  trim(): void {
    if (this.data.length > this.length) this.data = this.data.slice(0, this.length);
  }
}

export class TripleIndex {
  private readonly iris = new StringPool();
  /** Each literal as its value, SEP, and the number of its language or datatype in `tags`. */
  private readonly literals = new StringPool();
  /** '@lang', a datatype IRI, or '' (a plain string): few, so a Map. */
  private readonly tags: string[] = [];
  private readonly tagId = new Map<string, number>();
  private readonly s = new Int32Vec();
  private readonly p = new Int32Vec();
  /** An IRI's id, or -(literal index + 1). */
  private readonly o = new Int32Vec();
  private bySubject?: { start: Int32Array; order: Int32Array };
  private byObject?: { start: Int32Array; order: Int32Array };

  get size(): number {
    return this.s.length;
  }

  /** Literal <-> one string: value, then the number of its lang or datatype. */
  private encodeLiteral(l: Literal): string {
    const tag = l.lang ? `@${l.lang}` : (l.datatype ?? '');
    let id = this.tagId.get(tag);
    if (id === undefined) {
      id = this.tags.length;
      this.tags.push(tag);
      this.tagId.set(tag, id);
    }
    return `${l.value}${SEP}${id}`;
  }

  private decodeLiteral(text: string): Literal {
    const at = text.lastIndexOf(SEP);
    const value = text.slice(0, at);
    const tag = this.tags[Number(text.slice(at + 1))]!;
    if (tag.startsWith('@')) return { value, lang: tag.slice(1) };
    return tag ? { value, datatype: tag } : { value };
  }

  add(s: string, p: string, o: Term): void {
    this.s.push(this.iris.intern(s));
    this.p.push(this.iris.intern(p));
    this.o.push('iri' in o ? this.iris.intern(o.iri) : -this.literals.intern(this.encodeLiteral(o)) - 1);
    this.bySubject = this.byObject = undefined;
  }

  /** Triple numbers grouped by the id in `key` (counting sort): where each id's run starts, and the runs. */
  private group(key: Int32Array, n: number): { start: Int32Array; order: Int32Array } {
    const ids = this.iris.size;
    const start = new Int32Array(ids + 1);
    for (let i = 0; i < n; i++) if (key[i]! >= 0) start[key[i]! + 1]!++;
    for (let i = 0; i < ids; i++) start[i + 1]! += start[i]!;
    const fill = start.slice(0, ids);
    const order = new Int32Array(start[ids]!);
    for (let i = 0; i < n; i++) if (key[i]! >= 0) order[fill[key[i]!]!++] = i;
    return { start, order };
  }

  private run(index: { start: Int32Array; order: Int32Array }, iri: string): Int32Array {
    const id = this.iris.find(iri);
    if (id === undefined) return new Int32Array(0);
    return index.order.subarray(index.start[id]!, index.start[id + 1]!);
  }

  private objectOf(i: number): Term {
    const o = this.o.data[i]!;
    return o >= 0 ? { iri: this.iris.get(o) } : this.decodeLiteral(this.literals.get(-o - 1));
  }

  /** Facts about `iri`, once each (a fact stated twice, in two graphs, is one). */
  outgoing(iri: string, predicates?: ReadonlySet<string>): Fact[] {
    this.bySubject ??= this.group(this.s.data, this.s.length);
    const seen = new Set<string>();
    const out: Fact[] = [];
    for (const i of this.run(this.bySubject, iri)) {
      const p = this.iris.get(this.p.data[i]!);
      if (predicates && !predicates.has(p)) continue;
      const key = `${p} ${this.o.data[i]}`; // distinct strings have distinct ids
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ p, o: this.objectOf(i) });
    }
    return out;
  }

  /** Facts naming `iri` as their object, ordered by predicate then subject, once each. */
  incoming(iri: string, exclude: ReadonlySet<string>): IncomingFact[] {
    this.byObject ??= this.group(this.o.data, this.o.length);
    const seen = new Set<string>();
    const out: IncomingFact[] = [];
    for (const i of this.run(this.byObject, iri)) {
      const p = this.iris.get(this.p.data[i]!);
      if (exclude.has(p)) continue;
      const s = this.iris.get(this.s.data[i]!);
      if (seen.has(`${p} ${s}`)) continue;
      seen.add(`${p} ${s}`);
      out.push({ s, p });
    }
    return out.sort((a, b) => compareCodePoints(a.p, b.p) || compareCodePoints(a.s, b.s));
  }

  /** Every (subject, object) with predicate `p`, in triple order: a scan, for the few metadata predicates. */
  withPredicate(p: string): { s: string; o: Term }[] {
    const id = this.iris.find(p);
    const out: { s: string; o: Term }[] = [];
    if (id === undefined) return out;
    for (let i = 0; i < this.p.length; i++) if (this.p.data[i] === id) out.push({ s: this.iris.get(this.s.data[i]!), o: this.objectOf(i) });
    return out;
  }

  /** Builds both indexes now (else on the first question), and gives back the arrays' spare room. */
  seal(): void {
    for (const v of [this.s, this.p, this.o]) v.trim();
    this.iris.trim();
    this.literals.trim();
    this.bySubject ??= this.group(this.s.data, this.s.length);
    this.byObject ??= this.group(this.o.data, this.o.length);
  }
}
