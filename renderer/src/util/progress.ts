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
