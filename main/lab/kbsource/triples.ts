// A compact in-memory triple index for big dumps. N3.js's Store keeps about 1.4 GB per million triples
// (bench/speed/kb-dump.ts); this keeps IRIs interned once, literals as one string each, and the triples as three
// Int32Arrays with an index by subject and one by object (counting sort, built once after loading).
import { compareCodePoints, type Fact, type IncomingFact, type Literal, type Term } from './terms';

const SEP = '\u0001';

class Int32Vec {
  data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
}

/** Literal <-> one string: value, then lang or datatype. */
const encodeLiteral = (l: Literal): string => `${l.value}${SEP}${l.lang ? `@${l.lang}` : (l.datatype ?? '')}`;
function decodeLiteral(text: string): Literal {
  const at = text.lastIndexOf(SEP);
  const value = text.slice(0, at);
  const tail = text.slice(at + 1);
  if (tail.startsWith('@')) return { value, lang: tail.slice(1) };
  return tail ? { value, datatype: tail } : { value };
}

export class TripleIndex {
  private readonly iriId = new Map<string, number>();
  private readonly iris: string[] = [];
  private readonly literals: string[] = [];
  private readonly s = new Int32Vec();
  private readonly p = new Int32Vec();
  /** An IRI's id, or -(literal index + 1). */
  private readonly o = new Int32Vec();
  private bySubject?: { start: Int32Array; order: Int32Array };
  private byObject?: { start: Int32Array; order: Int32Array };

  get size(): number {
    return this.s.length;
  }

  private intern(iri: string): number {
    let id = this.iriId.get(iri);
    if (id === undefined) {
      id = this.iris.length;
      this.iris.push(iri);
      this.iriId.set(iri, id);
    }
    return id;
  }

  add(s: string, p: string, o: Term): void {
    this.s.push(this.intern(s));
    this.p.push(this.intern(p));
    if ('iri' in o) this.o.push(this.intern(o.iri));
    else {
      this.literals.push(encodeLiteral(o));
      this.o.push(-this.literals.length);
    }
    this.bySubject = this.byObject = undefined;
  }

  /** Triple numbers grouped by the id in `key` (counting sort): where each id's run starts, and the runs. */
  private group(key: Int32Array, n: number): { start: Int32Array; order: Int32Array } {
    const start = new Int32Array(this.iris.length + 1);
    for (let i = 0; i < n; i++) if (key[i]! >= 0) start[key[i]! + 1]!++;
    for (let i = 0; i < this.iris.length; i++) start[i + 1]! += start[i]!;
    const fill = start.slice(0, this.iris.length);
    const order = new Int32Array(start[this.iris.length]!);
    for (let i = 0; i < n; i++) if (key[i]! >= 0) order[fill[key[i]!]!++] = i;
    return { start, order };
  }

  private run(index: { start: Int32Array; order: Int32Array }, iri: string): Int32Array {
    const id = this.iriId.get(iri);
    if (id === undefined) return new Int32Array(0);
    return index.order.subarray(index.start[id]!, index.start[id + 1]!);
  }

  private objectOf(i: number): Term {
    const o = this.o.data[i]!;
    return o >= 0 ? { iri: this.iris[o]! } : decodeLiteral(this.literals[-o - 1]!);
  }

  /** Facts about `iri`, once each (a fact stated twice, in two graphs, is one). */
  outgoing(iri: string, predicates?: ReadonlySet<string>): Fact[] {
    this.bySubject ??= this.group(this.s.data, this.s.length);
    const seen = new Set<string>();
    const out: Fact[] = [];
    for (const i of this.run(this.bySubject, iri)) {
      const p = this.iris[this.p.data[i]!]!;
      if (predicates && !predicates.has(p)) continue;
      const key = `${p} ${this.o.data[i]! >= 0 ? this.o.data[i] : this.literals[-this.o.data[i]! - 1]}`;
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
      const p = this.iris[this.p.data[i]!]!;
      if (exclude.has(p)) continue;
      const s = this.iris[this.s.data[i]!]!;
      if (seen.has(`${p} ${s}`)) continue;
      seen.add(`${p} ${s}`);
      out.push({ s, p });
    }
    return out.sort((a, b) => compareCodePoints(a.p, b.p) || compareCodePoints(a.s, b.s));
  }

  /** Builds both indexes now (else on the first question). */
  seal(): void {
    this.bySubject ??= this.group(this.s.data, this.s.length);
    this.byObject ??= this.group(this.o.data, this.o.length);
  }
}
