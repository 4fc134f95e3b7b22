// A training job's stages in words, for the status bar's and the dashboard's hover text: each stage's share
// done and time left, and whether that time comes from the run's own measurements or the launch estimate.
import type { JobProgress } from '@contract';
import { formatDuration } from '../components/runs/runConfig';

export function stageLines(p: JobProgress | undefined): string[] {
  return (p?.stages ?? []).map((s) => {
    if (s.done >= 1) return `${s.label}: done`;
    const left = s.leftSeconds === null ? 'time left not known yet' : `${formatDuration(s.leftSeconds)} left (${s.basis === 'measured' ? 'measured rate' : 'estimated rate'})`;
    return `${s.label}: ${Math.floor(s.done * 100)} %, ${left}`;
  });
}

/** "about 6 min 10 s left", or null while some stage has no rate. */
export function timeLeft(p: JobProgress | undefined): string | null {
  return p?.secondsLeft === undefined ? null : `about ${formatDuration(p.secondsLeft)} left`;
}

/**
 * The job the status bar follows: the one it showed while that one still runs, else the first running. A job
 * started later never takes the bar from one in progress (the third walk's fourth session: a second run started
 * and the bar went from the first's 28 % to the second's 0 %, which reads as progress going back).
 */
export function jobShown<T extends { id: string }>(running: readonly T[], shownId: string | null): T | undefined {
  return running.find((j) => j.id === shownId) ?? running[0];
}
