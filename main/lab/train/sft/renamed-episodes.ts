// Renamed episodes for the RFT data (run config `renamed`, issue #41): for each of `copies` renamed worlds
// (agent/rename.ts: the run's graph with every name replaced, none of them a held-out question's), the expert
// plays every training question once more on that world's simulated web. The episodes carry the same relational
// facts under other names, so the policy learns to copy a name from the page rather than recall it.
// A renamed trajectory names its question `<qa id>@r<k>` and carries its question and answer text, since no
// dataset holds them.
import type { Graph, QA, Trajectory } from '../../formats';
import { createRng, seedFrom } from '../../util/rng';
import { SimWeb, type WebOptions } from '../../agent/web';
import { simToolset } from '../../agent/env';
import { rolloutDataset } from '../../agent/rollout';
import { questionNames, renameGraph, renameQa } from '../../agent/rename';
import { rftExpert } from '../policy/rft-expert';
import type { RunConfig } from '../../contract/run-config';

const RENAMED = /@r\d+$/;

/** The training question a (possibly renamed) trajectory's qa_id stands for. */
export function baseQaId(qaId: string): string {
  return qaId.replace(RENAMED, '');
}

/** The question text and answers of a renamed trajectory, or undefined for an ordinary one. */
export function renamedText(t: Trajectory): { question: string; answers: string[] } | undefined {
  const r = t.renamed as { question?: unknown; answer?: unknown } | undefined;
  return typeof r?.question === 'string' && typeof r.answer === 'string' ? { question: r.question, answers: [r.answer] } : undefined;
}

export interface RenamedInputs {
  graph: Graph;
  train: readonly QA[];
  /** Questions whose entities' names no renamed world may use (the held-out sets). */
  protect: readonly QA[];
  config: Pick<RunConfig, 'renamed' | 'rng' | 'rft'>;
  web: Partial<WebOptions>;
  limits: { maxToolCalls: number; maxNewTokens: number };
}

/** The expert's episodes on `copies` renamed worlds, every training question once on each. */
export async function renamedRollouts(inp: RenamedInputs, progress: (done: number, total: number) => void = () => {}): Promise<Trajectory[]> {
  const { copies, generated } = inp.config.renamed;
  const original = new Map(inp.graph.nodes.map((n) => [n.id, n.name]));
  const protectedNames = questionNames(inp.protect, inp.graph);
  const out: Trajectory[] = [];
  for (let k = 1; k <= copies; k++) {
    const world = renameGraph(inp.graph, createRng(seedFrom(`renamed/${inp.config.rng}/${k}`)), { generated, protectedNames });
    const qas = inp.train.map((q) => renameQa(q, original, world.names, `@r${k}`)).filter((q): q is QA => q !== null);
    const tools = simToolset(new SimWeb(world.graph, inp.web));
    const trajs = await rolloutDataset(qas, rftExpert(inp.config.rft.style, world.graph), tools, { n: 1, seed: seedFrom(`renamed/${inp.config.rng}/${k}/rollouts`), limits: inp.limits });
    const byId = new Map(qas.map((q) => [q.id, q]));
    for (const t of trajs) {
      const qa = byId.get(t.qa_id)!;
      out.push({ ...t, renamed: { question: qa.question, answer: qa.answer } });
    }
    progress(k, copies);
  }
  return out;
}
