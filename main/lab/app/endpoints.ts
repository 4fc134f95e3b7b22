// The contract's `endpoints.*` methods over db.json's `endpoints` collection: list, save (new or replace),
// remove, and test against the server. Only what endpointFields allows is stored, so never a key.
import { randomBytes } from 'node:crypto';
import type { StoreDb } from '../store/db';
import { type Endpoint, type EndpointTest, endpointFields, type endpointMethods } from '../contract/endpoints';
import type { z } from 'zod';
import { LabError } from '../base/errors';
import { findEndpoint, testEndpoint } from '../agent/endpoints';

type Params<M extends keyof typeof endpointMethods> = z.output<(typeof endpointMethods)[M]['params']>;

export function endpointHandlers(home: string, db: StoreDb) {
  return {
    'endpoints.list': (): Endpoint[] => [...db.data.endpoints],
    'endpoints.save': async (raw: Params<'endpoints.save'>): Promise<Endpoint> => {
      const fields = endpointFields.parse(raw);
      return db.update((d) => {
        const old = fields.id ? d.endpoints.find((e) => e.id === fields.id) : undefined;
        if (fields.id && !old) throw new LabError('not_found', `endpoint ${fields.id} is not saved: leave id out to save a new one`);
        if (fields.serves && !d.runs.some((r) => r.id === fields.serves!.runId)) throw new LabError('not_found', `serves: run ${fields.serves.runId} is not in the store`);
        const ep: Endpoint = { ...fields, id: old?.id ?? `ep-${randomBytes(4).toString('hex')}`, createdAt: old?.createdAt ?? new Date().toISOString() };
        d.endpoints = old ? d.endpoints.map((e) => (e.id === ep.id ? ep : e)) : [...d.endpoints, ep];
        return ep;
      });
    },
    'endpoints.remove': async ({ id }: Params<'endpoints.remove'>): Promise<{ removed: boolean }> =>
      db.update((d) => {
        const before = d.endpoints.length;
        d.endpoints = d.endpoints.filter((e) => e.id !== id);
        return { removed: d.endpoints.length < before };
      }),
    'endpoints.test': ({ id }: Params<'endpoints.test'>): Promise<EndpointTest> => testEndpoint(findEndpoint(home, id)),
  };
}
