// Distinct strings stored once each, as UTF-8 in one growing byte array, and found again by an open-addressing
// hash table of Int32s. A big dump has millions of IRIs and literals: as JS strings in a Map each costs its
// object header, the Map's entry and, worse, whatever parser buffer a sliced string keeps alive; here a string
// costs its bytes and 8 to 12 bytes of offsets and table (bench/speed/kb-dump.ts measures both).

const EMPTY = 0; // table slots hold id + 1

export class StringPool {
  private bytes = new Uint8Array(1 << 16);
  private view = Buffer.from(this.bytes.buffer);
  private used = 0;
  /** Where string k starts; it ends where k + 1 starts (or at `used`). */
  private starts = new Int32Array(1 << 10);
  private count = 0;
  private table = new Int32Array(1 << 11);
  private scratch = new Uint8Array(1 << 10);
  private readonly encoder = new TextEncoder();

  get size(): number {
    return this.count;
  }

  /** The id of `text`, adding it when new. Ids are 0, 1, 2, … in the order strings were first added. */
  intern(text: string): number {
    const n = this.encode(text);
    const h = hashBytes(this.scratch, n);
    const mask = this.table.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === EMPTY) {
        const id = this.append(n);
        this.table[slot] = id + 1;
        if (this.count * 2 > this.table.length) this.rehash();
        return id;
      }
      if (this.equals(entry - 1, n)) return entry - 1;
    }
  }

  /** The id of `text`, or undefined when it was never added. */
  find(text: string): number | undefined {
    const n = this.encode(text);
    const mask = this.table.length - 1;
    for (let slot = hashBytes(this.scratch, n) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot]!;
      if (entry === EMPTY) return undefined;
      if (this.equals(entry - 1, n)) return entry - 1;
    }
  }

  get(id: number): string {
    if (id < 0 || id >= this.count) throw new RangeError(`string ${id} of ${this.count}`);
    return this.view.toString('utf8', this.starts[id]!, this.end(id));
  }

  private end(id: number): number {
    return id + 1 < this.count ? this.starts[id + 1]! : this.used;
  }

  /** `text` as UTF-8 in `scratch`; its length in bytes. */
  private encode(text: string): number {
    if (text.length * 3 > this.scratch.length) this.scratch = new Uint8Array(text.length * 3 + 64);
    return this.encoder.encodeInto(text, this.scratch).written;
  }

  private equals(id: number, n: number): boolean {
    const start = this.starts[id]!;
    if (this.end(id) - start !== n) return false;
    for (let i = 0; i < n; i++) if (this.bytes[start + i] !== this.scratch[i]) return false;
    return true;
  }

  private append(n: number): number {
    if (this.used + n > this.bytes.length) {
      const want = Math.max(Math.ceil(this.bytes.length * 1.5), this.used + n);
      if (want > 2 ** 31 - 1) throw new RangeError('over 2 GiB of distinct IRIs or literals: load the dump into a SPARQL server (Virtuoso, QLever) and use sparql:');
      const bigger = new Uint8Array(want);
      bigger.set(this.bytes.subarray(0, this.used));
      this.bytes = bigger;
      this.view = Buffer.from(bigger.buffer);
    }
    if (this.count === this.starts.length) {
      const bigger = new Int32Array(Math.ceil(this.starts.length * 1.5));
      bigger.set(this.starts);
      this.starts = bigger;
    }
    this.bytes.set(this.scratch.subarray(0, n), this.used);
    this.starts[this.count] = this.used;
    this.used += n;
    return this.count++;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.count; id++) {
      const start = this.starts[id]!;
      let slot = hashBytes(this.bytes, this.end(id), start) & mask;
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }

  /** Gives back the spare room of the text and offsets (once loading is done; adding still works). */
  trim(): void {
    this.bytes = this.bytes.slice(0, Math.max(1, this.used));
    this.view = Buffer.from(this.bytes.buffer);
    this.starts = this.starts.slice(0, Math.max(1, this.count));
  }

  /** Bytes held (text, offsets and table): what the pool costs. */
  get footprint(): number {
    return this.bytes.length + this.starts.byteLength + this.table.byteLength;
  }
}

/** FNV-1a over bytes[from, to). */
function hashBytes(bytes: Uint8Array, to: number, from = 0): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}
