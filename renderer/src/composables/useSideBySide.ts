// Two trajectories side by side: which one stands on each side, its detail once fetched, and the error
// when one could not be fetched. A detail that arrives after its side was given another is dropped.
// Used by the trajectories store (a trajectory against another attempt) and the compare store (one
// question, checkpoint A against B).
import { ref, shallowRef } from 'vue';
import type { TrajDetail } from '@contract';
import { fetchTrajDetail } from '../stores/trajDetails';
import type { CompareCandidate, TrajRef } from '../stores/trajectories';
import { message } from '../util/errors';

export type Side = 'left' | 'right';

/** What SideBySide.vue shows: the two sides (refs and details) and the trajectories either may switch to. */
export interface SideBySideState {
  left: TrajRef | null;
  right: TrajRef | null;
  leftDetail: TrajDetail | null;
  rightDetail: TrajDetail | null;
  candidates: CompareCandidate[];
}

/** `clearOnPick`: a side shows nothing while its new trajectory loads (else the old one until then). */
export function useSideBySide(opts: { clearOnPick?: boolean } = {}) {
  const left = shallowRef<TrajRef | null>(null);
  const right = shallowRef<TrajRef | null>(null);
  const leftDetail = shallowRef<TrajDetail | null>(null);
  const rightDetail = shallowRef<TrajDetail | null>(null);
  const error = ref<string | null>(null);

  async function setSide(side: Side, r: TrajRef): Promise<void> {
    const target = side === 'left' ? left : right;
    const out = side === 'left' ? leftDetail : rightDetail;
    target.value = r;
    if (opts.clearOnPick) out.value = null;
    error.value = null;
    try {
      const d = await fetchTrajDetail(r.setId, r.trajId);
      if (target.value === r) out.value = d;
    } catch (err) {
      if (target.value === r) error.value = message(err);
    }
  }

  /** Empties both sides (the error is left to the caller). */
  function clearSides(): void {
    left.value = right.value = null;
    leftDetail.value = rightDetail.value = null;
  }

  return { left, right, leftDetail, rightDetail, error, setSide, clearSides };
}
