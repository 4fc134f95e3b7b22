// The data-policy loop's question pool (WebSailor-V2): RL's questions are cheap, so the pool is not a fixed set.
// It holds the questions at the policy's frontier and is refilled with fresh ones as they leave it. Pure.
//
// A question is judged by each group of G rollouts the policy plays on it, by its pass rate p = solved / G
// (solved as DUPO's too-easy filter judges it, batch.ts isSolved):
//
//   p = 1        too easy: the policy already solves it every time; it leaves the pool (DUPO's filter, applied
//                whenever the question is played rather than once before training)
//   p = 0        too hard: no rollout found the answer, so the group has no answer signal; after `hardPatience`
//                such groups in a row it leaves the pool
//   0 < p < 1    at the frontier: it stays
//
// A group with signal can only come from a question at the frontier: a group has one with probability
// 1 - p^G - (1-p)^G. When the pool falls under its target the loop asks for fresh questions (train/rl-stage/rl-refill.ts
// makes them off edges no protected question uses) and the pool takes those it has not seen, by id and by
// normalised question text, so no question enters twice.
//
// Counts (rl/pool_*): made (fresh questions the loop added, the seed pool not included), seed, kept (questions
// judged at the frontier at least once), dropped too easy, dropped too hard, size (in the pool now).

export type Verdict = 'frontier' | 'too_easy' | 'too_hard';

/** DUPO's verdict on a question from one group: `solved` of `g` rollouts right. */
export function judgeGroup(solved: number, g: number): Verdict {
  if (!(Number.isInteger(g) && g > 0) || !(Number.isInteger(solved) && solved >= 0 && solved <= g)) {
    throw new RangeError(`judgeGroup needs 0 <= solved <= g with g > 0, got ${solved} of ${g}`);
  }
  return solved === g ? 'too_easy' : solved === 0 ? 'too_hard' : 'frontier';
}

export interface PoolQuestion {
  id: string;
  question: string;
}

export interface FrontierCounts {
  seed: number;
  made: number;
  kept: number;
  tooEasy: number;
  tooHard: number;
  size: number;
}

const key = (q: string): string => q.toLowerCase().replace(/\s+/g, ' ').trim();

export class FrontierPool<Q extends PoolQuestion> {
  private readonly active = new Map<string, Q>();
  private readonly seen = new Set<string>();
  private readonly seenText = new Set<string>();
  private readonly hardStreak = new Map<string, number>();
  private readonly keptIds = new Set<string>();
  private readonly counts = { seed: 0, made: 0, tooEasy: 0, tooHard: 0 };
  /** Where the next draw starts in the pool's order (questions are played round-robin). */
  private cursor = 0;

  /**
   * @param target the pool's size the loop refills to
   * @param hardPatience all-fail groups in a row before a question leaves as too hard (1: at the first)
   */
  constructor(
    seed: readonly Q[],
    readonly target: number,
    readonly hardPatience = 1,
  ) {
    if (!(Number.isInteger(target) && target > 0)) throw new RangeError(`the pool's target must be a positive integer, got ${target}`);
    if (!(Number.isInteger(hardPatience) && hardPatience > 0)) throw new RangeError(`hardPatience must be a positive integer, got ${hardPatience}`);
    this.add(seed, 'seed');
  }

  /** Questions the pool lacks to reach its target. */
  get wanted(): number {
    return Math.max(0, this.target - this.active.size);
  }

  get size(): number {
    return this.active.size;
  }

  /** Every question that ever entered (ids), in or out of the pool now: what a refill must not repeat. */
  get everSeen(): ReadonlySet<string> {
    return this.seen;
  }

  /** Adds questions it has not seen (by id or text); returns how many it took, counted as `as` (seed or made). */
  add(fresh: readonly Q[], as: 'seed' | 'made' = 'made'): number {
    let took = 0;
    for (const q of fresh) {
      const text = key(q.question);
      if (this.seen.has(q.id) || this.seenText.has(text)) continue;
      this.seen.add(q.id);
      this.seenText.add(text);
      this.active.set(q.id, q);
      took++;
    }
    this.counts[as] += took;
    return took;
  }

  /** The next `n` questions of the pool (round-robin over its order; fewer when the pool is smaller). */
  draw(n: number): Q[] {
    const all = [...this.active.values()];
    if (all.length === 0) return [];
    const out: Q[] = [];
    for (let i = 0; i < Math.min(n, all.length); i++) out.push(all[(this.cursor + i) % all.length]!);
    this.cursor = (this.cursor + out.length) % Math.max(1, all.length);
    return out;
  }

  /** Judges a question by one group (`solved` of `g` right): it stays or leaves, and the counts follow. */
  judge(id: string, solved: number, g: number): Verdict {
    const verdict = judgeGroup(solved, g);
    if (!this.active.has(id)) return verdict; // played before it left (async), or not a pool question
    if (verdict === 'frontier') {
      this.keptIds.add(id);
      this.hardStreak.delete(id);
    } else if (verdict === 'too_easy') {
      this.active.delete(id);
      this.counts.tooEasy++;
    } else {
      const streak = (this.hardStreak.get(id) ?? 0) + 1;
      this.hardStreak.set(id, streak);
      if (streak >= this.hardPatience) {
        this.active.delete(id);
        this.counts.tooHard++;
      }
    }
    return verdict;
  }

  stats(): FrontierCounts {
    return { ...this.counts, kept: this.keptIds.size, size: this.active.size };
  }

  /** The counts as the run's metrics (rl/pool_*), for the dashboard. */
  metrics(): Record<string, number> {
    const c = this.stats();
    return {
      'rl/pool_size': c.size,
      'rl/pool_seed': c.seed,
      'rl/pool_made': c.made,
      'rl/pool_kept': c.kept,
      'rl/pool_too_easy': c.tooEasy,
      'rl/pool_too_hard': c.tooHard,
    };
  }
}
