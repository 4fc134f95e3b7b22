// `sailor policy serve` (a lab model as an OpenAI-compatible server, server/policy-service.ts) against real
// clients: the `openai` Python package (the models list, a completion with each token's log-probability, a 404
// for a model it does not serve), and the lab's own endpoint agent, whose episode with the served base model is
// the in-lab base model's own, turn for turn, with each turn's log-probabilities kept for the inspector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabCore } from '../../main/lab/app/core';
import type { ArtefactRecord, Endpoint, JobRecord } from '../../main/lab/contract';
import type { Trajectory } from '../../main/lab/formats';
import { waitForStatus } from '../support/helpers';
import { openDemoLab } from '../support/demo-lab';
import { LLM_PYTHON, llmServerMissing } from '../support/llm-server';
import { startPolicyServer, type PolicyServer } from '../support/policy-server';

let served: PolicyServer;
let core: LabCore;
let home: string;

beforeAll(async () => {
  served = await startPolicyServer('base');
  ({ core, home } = await openDemoLab('sailor-policy-serve-'));
}, 600_000);

afterAll(async () => {
  await core?.close();
  await served?.stop();
});

/** A rollout job's one trajectory. */
async function rollout(policy: string): Promise<Trajectory> {
  const job = (await core.call('jobs.start', { kind: 'rollout', params: { datasetId: 'd-demo', policy, n: 1, limit: 1, maxToolCalls: 3 } })) as JobRecord;
  expect((await waitForStatus(core, job.id, ['succeeded', 'failed'], 300_000)).error).toBeUndefined();
  const set = ((await core.call('trajectories.list', {})) as ArtefactRecord[]).find((s) => s.id === job.id)!;
  return JSON.parse(readFileSync(join(home, set.path), 'utf8').trim().split('\n')[1]!) as Trajectory;
}

describe('sailor policy serve', () => {
  const missing = llmServerMissing();
  it.skipIf(missing !== undefined)('answers the openai Python client: its model, a completion with each token’s log-probability, a 404 for another model', () => {
    const r = spawnSync(LLM_PYTHON, [join('tests', 'support', 'openai_client.py'), served.baseUrl, served.model], { encoding: 'utf8', timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      models: string[]; content: string; finish_reason: string; tokens: string[]; bytes: number[]; logprobs: number[];
      usage: { prompt: number; completion: number }; missing: { status: number; message: string } | null;
    };
    expect(out.models).toEqual(['base']);
    expect(out.tokens.length).toBeGreaterThan(0);
    expect(Buffer.from(out.bytes).toString('utf8')).toBe(out.content); // each token's bytes, in order, are the reply
    expect(out.logprobs.every((l) => l <= 0 && Number.isFinite(l))).toBe(true);
    expect(['stop', 'length']).toContain(out.finish_reason);
    expect(out.usage.completion).toBeGreaterThanOrEqual(out.tokens.length); // a final <|eos|> is counted, not shown
    expect(out.usage.prompt).toBeGreaterThan(0);
    expect(out.missing?.status).toBe(404);
    expect(out.missing?.message).toContain("'no-such-model' is not served here; this server serves 'base'");
  }, 300_000);
  if (missing) console.log(`policy-service.test.ts: the openai client check is skipped: ${missing}`);

  it('plays, through the endpoint agent, the episode the in-lab base model plays, each turn with its log-probabilities', async () => {
    const ep = (await core.call('endpoints.save', { name: 'served base', baseUrl: served.baseUrl, model: served.model, inFlight: 2 })) as Endpoint;
    const [inLab, viaChat] = [await rollout('base'), await rollout(`endpoint:${ep.id}`)];
    const bare = (t: Trajectory) => t.steps.map(({ llm: _llm, ...s }) => s);
    expect(viaChat.termination).not.toBe('policy_error');
    expect(bare(viaChat)).toEqual(bare(inLab));
    expect(viaChat.prediction).toBe(inLab.prediction);
    expect(viaChat.termination).toBe(inLab.termination);
    for (const s of viaChat.steps) {
      expect(s.llm?.logprobs?.length).toBeGreaterThan(0);
      expect(s.llm!.logprobs!.every(([tok, lp]) => typeof tok === 'string' && lp <= 0)).toBe(true);
      expect(s.llm!.completion_tokens).toBeGreaterThanOrEqual(s.llm!.logprobs!.length);
    }
  }, 600_000);
});
