import { describe, expect, expectTypeOf, it } from 'vitest';
import { JOB_PARAMS, JOB_STATUSES, METHOD_NAMES, RUN_STATUS_OF_JOB, isEventName, isJobKind, isMethodName, validateParams, type MethodParams, type MethodResult, type RunConfig } from '../../main/lab/contract';
import { jobSpecs } from '../../main/lab/jobs/specs';

describe('contract validation', () => {
  it('accepts valid params and applies defaults', () => {
    const r = validateParams('jobs.stream', { id: 'job-1' });
    expect(r).toEqual({ ok: true, value: { id: 'job-1', offset: 0, limit: 1000 } });
    expect(validateParams('jobs.start', { kind: 'demo' })).toEqual({ ok: true, value: { kind: 'demo', params: {} } });
  });

  it('treats missing params of a no-argument method as empty', () => {
    expect(validateParams('app.info', undefined)).toEqual({ ok: true, value: {} });
  });

  it('names every bad field in its message', () => {
    const r = validateParams('jobs.stream', { id: '', offset: -1, limit: 'x' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/^jobs\.stream: invalid params: /);
    expect(r.message).toContain('id:');
    expect(r.message).toContain('offset:');
    expect(r.message).toContain('limit:');
  });

  it('rejects unknown keys and ids with path characters', () => {
    const extra = validateParams('jobs.get', { id: 'a', extra: true });
    expect(extra.ok).toBe(false);
    if (!extra.ok) expect(extra.message).toContain('extra');
    const traversal = validateParams('jobs.get', { id: '../../etc/passwd' });
    expect(traversal.ok).toBe(false);
  });

  it('rejects non-object params', () => {
    for (const bad of [42, 'x', [1]]) expect(validateParams('jobs.get', bad).ok).toBe(false);
    // null reads as "no params", which then lacks the required id.
    expect(validateParams('jobs.get', null).ok).toBe(false);
  });

  it('knows its method and event names, and nothing else', () => {
    expect(METHOD_NAMES).toContain('jobs.start');
    expect(isMethodName('jobs.start')).toBe(true);
    expect(isMethodName('constructor')).toBe(false);
    expect(isMethodName('__proto__')).toBe(false);
    expect(isEventName('job.updated')).toBe(true);
    expect(isEventName('job.deleted')).toBe(false);
  });

  it('maps every job status to the run status main and the renderer show', () => {
    expect(Object.keys(RUN_STATUS_OF_JOB).sort()).toEqual([...JOB_STATUSES].sort());
    expect(RUN_STATUS_OF_JOB).toEqual({ queued: 'running', running: 'running', succeeded: 'finished', failed: 'failed', cancelled: 'cancelled', interrupted: 'interrupted' });
  });

  it('types jobs.start by kind with the schemas main validates a job with', () => {
    const ok: MethodParams<'jobs.start'> = { kind: 'rollout', params: { datasetId: 'd', policy: 'oracle', n: 2 } };
    const bare: MethodParams<'jobs.start'> = { kind: 'demo' };
    // @ts-expect-error a rollout's n is a number
    const wrongType: MethodParams<'jobs.start'> = { kind: 'rollout', params: { datasetId: 'd', n: 'two' } };
    // @ts-expect-error synth takes no policy (that is a rollout's)
    const wrongKey: MethodParams<'jobs.start'> = { kind: 'synth', params: { graphId: 'g', policy: 'oracle' } };
    // @ts-expect-error synth needs the graph to synthesise from
    const missing: MethodParams<'jobs.start'> = { kind: 'synth' };
    // @ts-expect-error no such kind
    const unknown: MethodParams<'jobs.start'> = { kind: 'nope', params: {} };
    expect(JOB_PARAMS[ok.kind].safeParse(ok.params).success).toBe(true);
    expect(JOB_PARAMS[bare.kind].safeParse(bare.params ?? {}).success).toBe(true);
    for (const p of [wrongType, wrongKey, missing]) expect(JOB_PARAMS[p.kind].safeParse(p.params ?? {}).success, p.kind).toBe(false);
    expect(isJobKind(unknown.kind)).toBe(false);
    // The job manager's table has a spec for every kind, validated with the contract's schema.
    expect(Object.keys(jobSpecs).sort()).toEqual(Object.keys(JOB_PARAMS).sort());
    for (const kind of Object.keys(JOB_PARAMS).filter(isJobKind)) expect(jobSpecs[kind].params, kind).toBe(JOB_PARAMS[kind]);
  });

  it('types each collection\'s artefact info (checked by tsc)', () => {
    type InfoOf<M extends 'graphs.list' | 'datasets.list' | 'trajectories.list' | 'comparisons.list'> = MethodResult<M>[number]['info'];
    expectTypeOf<InfoOf<'datasets.list'>['graphId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<InfoOf<'datasets.list'>['stats']>['published']>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<InfoOf<'graphs.list'>['stats']>['nodes']>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<InfoOf<'comparisons.list'>['params']>['checkpoints']>().toEqualTypeOf<string[]>();
    expectTypeOf<InfoOf<'trajectories.list'>['policy']>().toEqualTypeOf<string | undefined>();
    // A run the lab trained has its config; a run imported from verl has none, and says where it came from.
    expectTypeOf<MethodResult<'runs.list'>[number]['artefact']['info']['config']>().toEqualTypeOf<RunConfig | undefined>();
    expectTypeOf<NonNullable<MethodResult<'runs.list'>[number]['artefact']['info']['verl']>['metrics']>().toEqualTypeOf<string>();
  });
});
