// Asynchronous rollouts (ASearcher; rl/async.ts has the rules): `inFlight` rollouts in flight at all times,
// each started with the weights of the moment and tagged with that policy version; finished rollouts
// assemble into groups of G (a group's version is its oldest member's), and groups wait in an AsyncBuffer
// that drops those more than maxStaleness versions old. A step takes groups one by one as they are there,
// until its planner says it has enough (rl-plan.ts). Nothing waits for a rollout still running, so a long
// trajectory never stalls a step.
//
// Rollouts never run further ahead than their groups could be used (AReaL's bound on off-policyness): a step
// takes at most `groupsPerStep` groups, so a group more than (maxStaleness + 1) steps' worth past the first
// group of the step being collected would be too stale when its turn came. Its rollouts wait to start until
// a step begins. So more rollouts in flight (a larger batch for the rollout thread's decoder) cost no rollout
// dropped as stale while rollouts keep pace, and staleness stays within maxStaleness (the buffer's rule).
import { AsyncBuffer, GroupAssembler } from '../../rl/async';

export interface AsyncGroupLike {
  id: string;
  qaId: string;
  /** Oldest start version of its rollouts. */
  version: number;
}

export interface AsyncRolloutsOptions<Q, R extends { version: number }, G extends AsyncGroupLike> {
  groupSize: number;
  /** Rollouts in flight at once (rl.workers). */
  inFlight: number;
  maxStaleness: number;
  /** The most groups one step takes (its planner's bound). */
  groupsPerStep: number;
  questionAt: (i: number) => Q;
  /** Index of the first group (a resumed stage continues the count). */
  firstGroup: number;
  /** The policy version now. */
  version: () => number;
  run: (qa: Q, groupId: string, sample: number) => Promise<R>;
  makeGroup: (id: string, qa: Q, rollouts: R[]) => G;
}

export class AsyncRollouts<Q, R extends { version: number }, G extends AsyncGroupLike> {
  private readonly buffer: AsyncBuffer<G>;
  private readonly assembler: GroupAssembler<{ groupId: string; version: number; sample: number; rollout: R }>;
  private readonly workers: Promise<void>[] = [];
  private nextJob: number;
  private stopped = false;
  private error: unknown = null;
  private wake: (() => void) | null = null;
  /** Groups taken by steps so far. */
  private taken = 0;
  /** Groups that had left (taken or dropped as stale) when the step being collected began. */
  private baseline = 0;
  private gateWaiters: Array<() => void> = [];
  private running = 0;

  constructor(private readonly o: AsyncRolloutsOptions<Q, R, G>) {
    // Each group is one whole buffer "sample": it is released alone, so a step can take them one at a time.
    this.buffer = new AsyncBuffer<G>({ batchSize: 1, maxStaleness: o.maxStaleness });
    this.assembler = new GroupAssembler(o.groupSize);
    this.nextJob = o.firstGroup * o.groupSize;
    for (let w = 0; w < o.inFlight; w++) this.workers.push(this.worker());
  }

  /** Rollouts playing now. */
  get inFlight(): number {
    return this.running;
  }

  /** Group g (its index from the stage's first) may start: it would be taken within maxStaleness versions. */
  private mayStart(g: number): boolean {
    return g - this.o.firstGroup - this.baseline < (this.o.maxStaleness + 1) * this.o.groupsPerStep;
  }

  private async worker(): Promise<void> {
    try {
      while (!this.stopped) {
        const j = this.nextJob++;
        const g = Math.floor(j / this.o.groupSize);
        const sample = j % this.o.groupSize;
        while (!this.stopped && !this.mayStart(g)) await new Promise<void>((resolve) => this.gateWaiters.push(resolve));
        if (this.stopped) break;
        const qa = this.o.questionAt(g);
        this.running++;
        const rollout = await this.o.run(qa, `g${g}`, sample).finally(() => this.running--);
        if (this.stopped) break;
        const done = this.assembler.add({ groupId: `g${g}`, version: rollout.version, sample, rollout });
        if (done) {
          const ordered = [...done.members].sort((a, b) => a.sample - b.sample).map((m) => m.rollout);
          this.buffer.push(this.o.makeGroup(`g${g}`, qa, ordered), this.o.version());
          this.notify();
        }
      }
    } catch (err) {
      this.error = err;
      this.notify();
    }
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private openGate(): void {
    const waiting = this.gateWaiters;
    this.gateWaiters = [];
    for (const w of waiting) w();
  }

  /**
   * The groups of the next step, taken until `enough` says so, named `<step>/<qa_id>`; with
   * rollout/staleness_max, rollout/staleness_mean, rollout/stale_dropped and rollout/in_flight.
   */
  async next(
    version: number,
    step: number,
    enough: (taken: readonly G[]) => boolean,
    say: (message: string) => void,
  ): Promise<{ groups: G[]; looked: number; metrics: Record<string, number> }> {
    this.baseline = this.taken + this.buffer.dropped.length;
    this.openGate();
    const taken: G[] = [];
    let dropped = 0;
    while (!enough(taken)) {
      if (this.error) throw this.error;
      const b = this.buffer.release(version);
      if (b) {
        taken.push(b.samples[0]!);
        dropped += b.droppedStale;
        continue;
      }
      say(`waiting for finished groups (${taken.length} so far, ${this.assembler.pending} rollouts of open groups done)`);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    this.taken += taken.length;
    const staleness = taken.map((g) => version - g.version);
    // Name the groups by step and question (a question twice in one step gets #2, #3).
    const seen = new Map<string, number>();
    const groups = taken.map((g) => {
      const n = (seen.get(g.qaId) ?? 0) + 1;
      seen.set(g.qaId, n);
      return { ...g, id: `${step}/${g.qaId}${n > 1 ? `#${n}` : ''}` };
    });
    return {
      groups,
      looked: taken.length,
      metrics: {
        'rollout/staleness_max': Math.max(0, ...staleness),
        'rollout/staleness_mean': staleness.length ? staleness.reduce((a, s) => a + s, 0) / staleness.length : 0,
        'rollout/stale_dropped': dropped,
        'rollout/in_flight': this.running,
      },
    };
  }

  /** Stops the workers: running rollouts end at their next turn; waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.openGate();
    await Promise.all(this.workers);
  }
}
