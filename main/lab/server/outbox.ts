// What web mode holds for one WebSocket subscriber that reads slower than events come (issue #44, item 9). While
// the socket's own buffer is under HIGH_WATER bytes an event goes out at once; past it, events wait here, coalesced:
// the latest state of each job and of the backend replaces the one before, a run's metric records are gathered
// into one event. A subscriber whose waiting events pass MAX_PENDING_BYTES, or whose buffer stays full for
// HOPELESS_MS, is hopeless and is closed (the client reconnects and reads the state afresh). Pure but for time.
export const OUTBOX_LIMITS = { highWater: 1 << 20, maxPendingBytes: 4 << 20, hopelessMs: 30_000 };

interface Pending {
  event: string;
  payload: unknown;
  bytes: number;
}

/** The key an event coalesces under: one job's state, one run's records, the backend. */
function keyOf(event: string, payload: unknown): string {
  const p = payload as { id?: unknown; runId?: unknown } | null;
  if (event === 'job.updated' && typeof p?.id === 'string') return `job:${p.id}`;
  if (event === 'run.metrics' && typeof p?.runId === 'string') return `run:${p.runId}`;
  return event;
}

export class Outbox {
  private readonly pending = new Map<string, Pending>();
  private pendingBytes = 0;
  private fullSince: number | null = null;

  constructor(private readonly limits = OUTBOX_LIMITS) {}

  /**
   * An event for this subscriber, given the bytes its socket has buffered: the texts to send now (what waited,
   * then this one, in order), or 'hopeless' when it should be closed.
   */
  offer(event: string, payload: unknown, buffered: number, now = Date.now()): string[] | 'hopeless' {
    this.hold(event, payload);
    return this.flush(buffered, now);
  }

  /** What waited, to send now that the socket's buffer is under the high-water mark; 'hopeless' as in offer. */
  flush(buffered: number, now = Date.now()): string[] | 'hopeless' {
    if (buffered >= this.limits.highWater) {
      this.fullSince ??= now;
      return this.pendingBytes > this.limits.maxPendingBytes || now - this.fullSince > this.limits.hopelessMs ? 'hopeless' : [];
    }
    this.fullSince = null;
    const out = [...this.pending.values()].map((p) => JSON.stringify({ event: p.event, payload: p.payload }));
    this.pending.clear();
    this.pendingBytes = 0;
    return out;
  }

  get waiting(): number {
    return this.pending.size;
  }

  private hold(event: string, payload: unknown): void {
    const key = keyOf(event, payload);
    const before = this.pending.get(key);
    const bytes = JSON.stringify(payload).length;
    // Re-inserted at the end: what is held goes out in the order of the latest events.
    this.pending.delete(key);
    if (event === 'run.metrics' && before) {
      const a = before.payload as { runId: string; records: unknown[] };
      const b = payload as { records: unknown[] };
      this.pending.set(key, { event, payload: { ...a, records: [...a.records, ...b.records] }, bytes: before.bytes + bytes });
      this.pendingBytes += bytes;
    } else {
      this.pending.set(key, { event, payload, bytes });
      this.pendingBytes += bytes - (before?.bytes ?? 0);
    }
  }
}
