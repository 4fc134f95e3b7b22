// Which queued job starts next. Every job runs in a worker thread of the process that started it, and a worker
// holds its own copy of what it loads (the knowledge base, a graph, a model): twenty kg.build jobs at once took
// `sailor serve` to 8.4 GB. So jobs wait in a queue, first come first served, and one starts only while its
// kind is under its limit, the process is under its total, and memory is under the budget. Pure: the manager
// (manager.ts) keeps the queue and asks here.
import { availableParallelism, totalmem } from 'node:os';

export interface JobLimits {
  /** Jobs running at once in this process, all kinds together. */
  running: number;
  /** Jobs of one kind running at once; a kind not named here has `defaultPerKind`. */
  perKind: Readonly<Record<string, number>>;
  defaultPerKind: number;
  /** Jobs waiting; one more is refused (busy) rather than held. */
  queued: number;
  /** The process's resident memory above which no further job starts (one always may when none runs). */
  memoryBytes: number;
}

const GiB = 1024 ** 3;

/**
 * Defaults for a 2-core laptop: as many jobs as cores (at least two); one graph build, comparison or estimate at
 * a time (a graph build loads the whole knowledge base: about 480 MB a worker), two of the lighter kinds (two
 * runs, or two rollouts, side by side are common); memory up to half the machine's, capped at 6 GiB.
 */
export function defaultJobLimits(): JobLimits {
  return {
    running: Math.max(2, availableParallelism()),
    perKind: { train: 2, rollout: 2, synth: 2, demo: 4 },
    defaultPerKind: 1,
    queued: 64,
    memoryBytes: Math.min(6 * GiB, totalmem() / 2),
  };
}

/** Why a job of `kind` waits, in words, given the kinds running and the process's memory; null when it may start. */
export function waitReason(limits: JobLimits, running: readonly string[], rssBytes: number, kind: string): string | null {
  const perKind = Object.hasOwn(limits.perKind, kind) ? limits.perKind[kind]! : limits.defaultPerKind;
  if (running.filter((k) => k === kind).length >= perKind) return `${perKind} ${kind} job${perKind === 1 ? '' : 's'} at a time`;
  if (running.length >= limits.running) return `${limits.running} jobs at a time`;
  if (running.length > 0 && rssBytes > limits.memoryBytes) return `memory over the ${Math.round(limits.memoryBytes / 2 ** 20)} MiB budget`;
  return null;
}

/** Indexes of the queued jobs (their kinds, oldest first) that may start now; each counts as running for the ones after it. */
export function startable(limits: JobLimits, queued: readonly string[], running: readonly string[], rssBytes: number): number[] {
  const now = [...running];
  const out: number[] = [];
  queued.forEach((kind, i) => {
    if (waitReason(limits, now, rssBytes, kind) !== null) return;
    out.push(i);
    now.push(kind);
  });
  return out;
}

/** "1st", "2nd", "3rd", "11th", "22nd": a job's place in the queue. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
