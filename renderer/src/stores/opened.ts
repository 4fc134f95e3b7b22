// One item open at a time, fetched by id: the open id, the value, loading and error. A response for an id
// that is no longer wanted (the user clicked on) is dropped, so a slow earlier request never overwrites
// a later one. Used by the stores of graphs, datasets, trajectory sets and comparisons, as is the list
// loader below.
import { ref, shallowRef } from 'vue';
import type { MethodResult } from '@contract';
import { lab } from '../api/client';
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

  /** Nothing open: a response still on its way is dropped. */
  function close(): void {
    currentId.value = null;
    current.value = null;
    error.value = null;
    loading.value = false;
  }

  return { currentId, current, loading, error, open, close };
}

/** A store's list of artefacts (graphs, datasets, trajectory sets, comparisons), loaded on demand. */
export function useArtefactList<M extends 'graphs.list' | 'datasets.list' | 'trajectories.list' | 'comparisons.list'>(method: M) {
  const list = shallowRef<MethodResult<M>>([]);
  const listError = ref<string | null>(null);
  /** True once a load has answered (listed or failed): views tell "none yet" from "not asked yet". */
  const listLoaded = ref(false);

  async function load(): Promise<void> {
    try {
      list.value = await lab().call(method);
      listError.value = null;
    } catch (err) {
      listError.value = message(err);
    } finally {
      listLoaded.value = true;
    }
  }

  return { list, listError, listLoaded, load };
}

/**
 * A store's artefacts: the list (above), the one open (useOpened), and `ensureOpen`, which opens the newest
 * when none is open yet, listing them first when the list is empty (`loadOnce`: only when not yet listed).
 * A store returns the whole of it (`...artefacts`) among its own state.
 */
export function useArtefacts<M extends Parameters<typeof useArtefactList>[0], T>(
  method: M,
  fetch: (id: string) => Promise<T>,
  hooks: Parameters<typeof useOpened<T>>[1] = {},
  opts: { loadOnce?: boolean } = {},
) {
  const listing = useArtefactList(method);
  const opened = useOpened<T>(fetch, hooks);

  async function ensureOpen(): Promise<void> {
    if (opts.loadOnce ? !listing.listLoaded.value : !listing.list.value.length) await listing.load();
    const first = listing.list.value[0];
    if (!opened.currentId.value && first) await opened.open(first.id);
  }

  return { ...listing, ...opened, ensureOpen };
}
