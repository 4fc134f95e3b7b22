// One step axis for runs that continue each other. A run started from another run's checkpoint ("Train
// further": RL from `<parent>/<step>`) numbers its own steps from 1; on the dashboard its step s is drawn at
// offset + s, the offset being the parent's step at that checkpoint plus the parent's own offset, so parent
// and child overlay as one curve. Runs started fresh, or from a checkpoint that is not a run's (a file, a
// deleted run), have offset 0.
import type { RunSummary } from '@contract';

/** `<run>/<step>` or `<run>/last` (runs/layout.ts checkpointRef; an optional `ckpt:` prefix). */
export function parseRunCheckpoint(ref: string): { runId: string; step: number | 'last' } | null {
  const m = /^(?:ckpt:)?([A-Za-z0-9._:-]+)\/(\d+|last)$/.exec(ref);
  if (!m) return null;
  return { runId: m[1]!, step: m[2] === 'last' ? 'last' : Number(m[2]) };
}

/** Each run's offset on the shared axis, by run id; `byId` holds every run the parents may be among. */
export function stepOffsets(byId: ReadonlyMap<string, RunSummary>): Map<string, number> {
  const out = new Map<string, number>();
  const visiting = new Set<string>();
  const offsetOf = (id: string): number => {
    const known = out.get(id);
    if (known !== undefined) return known;
    const ref = byId.get(id)?.artefact.info.config?.init?.checkpoint;
    const parsed = ref ? parseRunCheckpoint(ref) : null;
    const parent = parsed ? byId.get(parsed.runId) : undefined;
    let offset = 0;
    if (parsed && parent && !visiting.has(id)) {
      visiting.add(id);
      offset = offsetOf(parsed.runId) + (parsed.step === 'last' ? parent.lastStep : parsed.step);
      visiting.delete(id);
    }
    out.set(id, offset);
    return offset;
  };
  for (const id of byId.keys()) offsetOf(id);
  return out;
}

/** A run's steps on the shared axis (the same array when the offset is 0). */
export function shiftSteps(steps: number[], offset: number): number[] {
  return offset === 0 ? steps : steps.map((s) => s + offset);
}
