// Saved model endpoints (an OpenAI-compatible server and a model on it): the list every policy picker offers,
// saving and removing them, and the last "test" answer of each.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { endpointPolicy, type Endpoint, type EndpointFields, type EndpointTest } from '@contract';
import { lab } from '../api/client';
import { message } from '../util/errors';

export const useEndpoints = defineStore('endpoints', () => {
  const list = ref<Endpoint[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const tests = ref<Record<string, EndpointTest | 'running'>>({});
  /**
   * Bumped by every load and every change: a list answered before a change was made is not shown after it.
   * (Compare's view, its form and this panel each load the list as they open, and a save can come back first.)
   */
  let version = 0;

  async function load(): Promise<void> {
    const asked = ++version;
    try {
      const answer = await lab().call('endpoints.list');
      if (asked === version) list.value = answer;
      error.value = null;
    } catch (err) {
      error.value = message(err);
    } finally {
      loaded.value = true;
    }
  }

  async function save(fields: EndpointFields): Promise<Endpoint> {
    version++;
    const ep = await lab().call('endpoints.save', fields);
    // Shown at once, in its place; the reload then brings what other windows changed.
    list.value = list.value.some((e) => e.id === ep.id) ? list.value.map((e) => (e.id === ep.id ? ep : e)) : [...list.value, ep];
    await load();
    return ep;
  }

  async function remove(id: string): Promise<void> {
    version++;
    await lab().call('endpoints.remove', { id });
    list.value = list.value.filter((e) => e.id !== id);
    await load();
  }

  async function test(id: string): Promise<void> {
    tests.value = { ...tests.value, [id]: 'running' };
    let result: EndpointTest;
    try {
      result = await lab().call('endpoints.test', { id });
    } catch (err) {
      result = { ok: false, models: null, modelsMs: null, completion: null, completionMs: null, error: message(err) };
    }
    tests.value = { ...tests.value, [id]: result };
  }

  /** An endpoint by its policy spec or comparison entry (`endpoint:<id>`). */
  const bySpec = (spec: string): Endpoint | undefined => list.value.find((e) => endpointPolicy(e.id) === spec);

  return { list, loaded, error, tests, load, save, remove, test, bySpec };
});
