// Readers for the agent's inputs: a `sailor.qa/1` dataset, validated line by line with errors that name
// file:line: field, and trajectories (`sailor.traj/1`). Graphs are read by kg/io's readGraphFile.
import { z } from 'zod';
import type { QA, Trajectory } from '../formats/index';
import { QA_FORMAT, TRAJ_FORMAT } from '../formats/index';
import { inputError } from '../errors';
import { readJsonl } from '../store/files';

const filterValue = z.union([z.string(), z.number(), z.tuple([z.number(), z.number()])]);

const qaSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  answer: z.string(),
  answer_id: z.string(),
  aliases: z.array(z.string()).default([]),
  level: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  graph: z.string().default(''),
  subgraph: z.object({ nodes: z.array(z.string()), edges: z.array(z.string()) }).default({ nodes: [], edges: [] }),
  wl_hash: z.string().default(''),
  orbit: z.number().default(0),
  topology: z.string().default(''),
  query: z.object({
    answer: z.string().startsWith('?'),
    patterns: z.array(z.object({ s: z.string().min(1), rel: z.string().min(1), o: z.string().min(1) })),
    filters: z.array(
      z.object({
        var: z.string().startsWith('?'),
        attr: z.string().min(1),
        op: z.enum(['eq', 'lt', 'gt', 'between', 'prefix', 'contains']),
        value: filterValue,
      }),
    ),
  }),
  obfuscations: z.array(z.object({ kind: z.string(), target: z.string(), from: z.string(), to: z.string() })).default([]),
  distractors: z.array(z.string()).default([]),
  support: z.array(z.string()).default([]),
  candidates: z.number().int().default(1),
});

function issueField(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

/** Validates one parsed QA record; the error names file, line and field. */
export function parseQa(value: unknown, file: string, line: number): QA {
  const r = qaSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw inputError(file, issue.message, { line, field: issueField(issue.path) || undefined });
  }
  return r.data as QA;
}

export interface QaDataset {
  header: Record<string, unknown> | null;
  qas: QA[];
}

/** Reads a `sailor.qa/1` JSON Lines file: optional header line `{"format": "sailor.qa/1", ...}`, then QAs. */
export function readQaDataset(path: string): QaDataset {
  const { records } = readJsonl(path);
  let header: Record<string, unknown> | null = null;
  const qas: QA[] = [];
  const seen = new Set<string>();
  records.forEach((rec, i) => {
    const v = rec.value;
    if (i === 0 && v && typeof v === 'object' && 'format' in v) {
      const format = (v as { format: unknown }).format;
      if (format !== QA_FORMAT) throw inputError(path, `expected format '${QA_FORMAT}', got '${String(format)}'`, { line: rec.line, field: 'format' });
      header = v as Record<string, unknown>;
      return;
    }
    const qa = parseQa(v, path, rec.line);
    if (seen.has(qa.id)) throw inputError(path, `duplicate id '${qa.id}'`, { line: rec.line, field: 'id' });
    seen.add(qa.id);
    qas.push(qa);
  });
  if (qas.length === 0) throw inputError(path, 'no QA records');
  return { header, qas };
}

/** Reads trajectories written by `sailor rollout` (header line optional). */
export function readTrajectories(path: string): Trajectory[] {
  const { records } = readJsonl(path);
  const out: Trajectory[] = [];
  for (const rec of records) {
    const v = rec.value as Record<string, unknown> | null;
    if (v && typeof v === 'object' && 'format' in v) {
      if (v.format !== TRAJ_FORMAT) throw inputError(path, `expected format '${TRAJ_FORMAT}', got '${String(v.format)}'`, { line: rec.line, field: 'format' });
      continue;
    }
    if (!v || typeof v.qa_id !== 'string' || !Array.isArray(v.steps)) {
      throw inputError(path, 'not a trajectory (needs qa_id and steps)', { line: rec.line });
    }
    out.push(v as unknown as Trajectory);
  }
  return out;
}
