// Helpers that several unit tests share: a small graph written as text, and waiting for a job's status.
import type { LabCore } from '../../main/lab/app/core';
import type { JobRecord, JobStatus } from '../../main/lab/contract';
import type { Graph } from '../../main/lab/formats/index';

/** Nodes as 'id:type', edges as [source, relation, target]; edge ids e0, e1, … in order. */
export function graphOf(nodes: string[], edges: [string, string, string][]): Graph {
  return {
    format: 'sailor.graph/1',
    nodes: nodes.map((s) => {
      const [id, type] = s.split(':') as [string, string];
      return { id, type, name: id, aliases: [], attrs: {}, meta: {} };
    }),
    edges: edges.map(([source, relation, target], i) => ({ id: `e${i}`, source, target, relation, meta: {} })),
  };
}

/** The job's record once its status is one of `statuses` (at once when it already is); rejects after the timeout. */
export function waitForStatus(core: LabCore, id: string, statuses: JobStatus[], timeoutMs = 120_000): Promise<JobRecord> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job ${id} did not reach ${statuses.join('/')} in time`)), timeoutMs);
    const check = (job: JobRecord): void => {
      if (job.id === id && statuses.includes(job.status)) {
        clearTimeout(timer);
        off();
        resolve(job);
      }
    };
    const off = core.on('job.updated', check);
    check(core.jobs.get(id));
  });
}
