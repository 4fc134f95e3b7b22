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

  async function load(): Promise<void> {
    try {
      list.value = await lab().call('endpoints.list');
      error.value = null;
    } catch (err) {
      error.value = message(err);
    } finally {
      loaded.value = true;
    }
  }

  async function save(fields: EndpointFields): Promise<Endpoint> {
    const ep = await lab().call('endpoints.save', fields);
    await load();
    return ep;
  }

  async function remove(id: string): Promise<void> {
    await lab().call('endpoints.remove', { id });
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
