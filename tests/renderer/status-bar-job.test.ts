// The status bar follows one job while it runs (issue 45, part 2, point 4: progress never goes back). The fourth
// walk started a second training run while the first was at 28 %: the bar went to the new run's 0 %.
import { describe, expect, it } from 'vitest';
import { jobShown } from '../../renderer/src/util/progress';

const job = (id: string, fraction: number) => ({ id, fraction });

describe('jobShown', () => {
  it('keeps the job it showed while that one runs, whatever starts after it', () => {
    const first = job('run-a', 0.28);
    expect(jobShown([first], null)).toBe(first);
    // The newer run listed first (the store lists newest first): the bar stays on run-a.
    expect(jobShown([job('run-b', 0), first], 'run-a')).toBe(first);
  });

  it('moves to a running job once its own has ended, and shows none when none runs', () => {
    const second = job('run-b', 0.1);
    expect(jobShown([second], 'run-a')).toBe(second);
    expect(jobShown([], 'run-a')).toBeUndefined();
  });
});
