// Full trajectories (`trajectories.one`) are large and immutable once written: the inspector and the
// comparison view share one small most-recently-used cache of them.
import type { TrajDetail } from '@contract';
import { lab } from '../api/client';

const CAPACITY = 24;
const cache = new Map<string, TrajDetail>();

export async function fetchTrajDetail(setId: string, trajId: string): Promise<TrajDetail> {
  const key = `${setId}\n${trajId}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // most recently used last
    cache.set(key, hit);
    return hit;
  }
  const detail = await lab().call('trajectories.one', { id: setId, trajId });
  cache.set(key, detail);
  while (cache.size > CAPACITY) cache.delete(cache.keys().next().value!);
  return detail;
}

/** A trajectory already fetched, without fetching (for lists that show what is at hand). */
export function peekTrajDetail(setId: string, trajId: string): TrajDetail | undefined {
  return cache.get(`${setId}\n${trajId}`);
}
