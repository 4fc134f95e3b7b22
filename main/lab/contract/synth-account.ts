// A synthesis's figures that add up (issue 45, part 2, point 9: "304 attempts" beside "488 rejections"). Its
// rejections count two things: subgraphs the sampler drew that never reached an attempt (a shape or subgraph
// seen already, an excluded edge, an orbit group too large to fit), and attempts, each answer tried once, which
// are published or dropped for one reason (orbit_group_incomplete: made, then dropped with their group).
import type { SynthStats } from '../formats';

/** Rejections of drawn subgraphs before any answer was tried on them (synth/build.ts): not attempts. */
export const SUBGRAPH_REJECTIONS: readonly string[] = ['duplicate_hash', 'duplicate_subgraph', 'excluded_edge', 'group_too_large'];

export interface SynthAccount {
  attempts: number;
  published: number;
  /** Attempts dropped, by reason; published plus their sum is the attempts. */
  dropped: Record<string, number>;
  droppedTotal: number;
  /** Subgraphs set aside before an attempt, by reason. */
  setAside: Record<string, number>;
  /** Attempts neither published nor dropped: 0 for a set the lab made (an older store's set may differ). */
  unaccounted: number;
}

export function synthAccount(stats: Pick<SynthStats, 'attempts' | 'published' | 'rejections'>): SynthAccount {
  const dropped: Record<string, number> = {};
  const setAside: Record<string, number> = {};
  for (const [reason, n] of Object.entries(stats.rejections ?? {})) {
    if (!n) continue;
    if (SUBGRAPH_REJECTIONS.includes(reason)) setAside[reason] = n;
    else dropped[reason] = n;
  }
  const droppedTotal = Object.values(dropped).reduce((s, n) => s + n, 0);
  return { attempts: stats.attempts, published: stats.published, dropped, droppedTotal, setAside, unaccounted: stats.attempts - stats.published - droppedTotal };
}
