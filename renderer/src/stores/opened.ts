// One item open at a time, fetched by id: the open id, the value, loading and error. A response for an id
// that is no longer wanted (the user clicked on) is dropped, so a slow earlier request never overwrites
// a later one. Used by the stores of graphs, datasets, trajectory sets and comparisons.
import { ref, shallowRef } from 'vue';
import { message } from '../util/errors';

export function useOpened<T>(fetch: (id: string) => Promise<T>, hooks: { reset?: () => void; loaded?: (value: T) => void } = {}) {
  const currentId = ref<string | null>(null);
  const current = shallowRef<T | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);

  async function open(id: string): Promise<void> {
    if (currentId.value === id && current.value && !error.value) return;
    currentId.value = id;
    loading.value = true;
    error.value = null;
    hooks.reset?.();
    try {
      const value = await fetch(id);
      if (currentId.value !== id) return;
      current.value = value;
      hooks.loaded?.(value);
    } catch (err) {
      if (currentId.value === id) {
        error.value = message(err);
        current.value = null;
      }
    } finally {
      if (currentId.value === id) loading.value = false;
    }
  }

  return { currentId, current, loading, error, open };
}
