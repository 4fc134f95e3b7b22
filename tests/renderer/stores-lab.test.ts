// The renderer's data stores against a real lab on a loopback port (tests/support/ui-lab.ts), in the order a
// user meets them: a graph built and opened (graph store), questions synthesised and filtered (datasets),
// a tiny real training run followed live by its job and metric events (runs), two of its checkpoints
// compared (compare), and expert rollouts inspected (trajectories). The tests share what the earlier made.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { eventsOpen, startUiLab, until, type UiLab } from '../support/ui-lab';
import { TINY_RUN } from '../support/tiny-run';
import { buildIndex, searchNodes, useGraph } from '../../renderer/src/stores/graph';
import { PAGE_SIZE, useDatasets } from '../../renderer/src/stores/datasets';
import { useRuns } from '../../renderer/src/stores/runs';
import { useCompare } from '../../renderer/src/stores/compare';
import { useTrajectories } from '../../renderer/src/stores/trajectories';
import { useJobs } from '../../renderer/src/stores/jobs';

let lab: UiLab;
let pinia: Pinia;
const made = { graphId: '', trainId: '', heldOutId: '', runId: '' };

beforeAll(async () => {
  lab = await startUiLab();
  // One set of stores for the whole file, as in the app: each test goes on from the last one's state.
  pinia = createPinia();
  setActivePinia(pinia);
  useJobs();
  await until('the event socket', eventsOpen);
});
afterAll(async () => {
  await lab.close();
});
beforeEach(() => setActivePinia(pinia));

describe('graph store', () => {
  it('builds a graph, lists it and opens it (the launcher opens what this window started)', async () => {
    const graph = useGraph();
    await graph.load();
    expect(graph.list).toEqual([]);
    await graph.build({ rng: 7, maxEdges: 150 });
    const current = await until('the new graph to open', () => graph.current, 90_000);
    made.graphId = graph.currentId!;
    expect(graph.list.map((g) => g.id)).toEqual([made.graphId]);
    expect(graph.building).toBe(false);
    expect(current.view.graph.edges.length).toBeGreaterThan(0);
  });

  it('indexes the open graph: every edge out of its source and into its target, types by count', () => {
    const { view, index } = useGraph().current!;
    const edges = view.graph.edges;
    expect([...index.out.values()].flat()).toHaveLength(edges.length);
    expect([...index.inc.values()].flat()).toHaveLength(edges.length);
    for (const e of edges) {
      expect(index.out.get(e.source)).toContain(e);
      expect(index.inc.get(e.target)).toContain(e);
    }
    const counts = index.types.map((t) => t.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(view.graph.nodes.length);
    expect(buildIndex(view).maxStep).toBe(index.maxStep);
  });

  it('finds an entity by its exact name first, then by prefix', () => {
    const { view, index } = useGraph().current!;
    const node = view.graph.nodes.find((n) => n.name.length > 4)!;
    expect(searchNodes(index, node.name)[0]!.name.toLowerCase()).toBe(node.name.toLowerCase());
    for (const hit of searchNodes(index, node.name.slice(0, 3), 8)) {
      expect([hit.name, ...hit.aliases].some((k) => k.toLowerCase().includes(node.name.slice(0, 3).toLowerCase()))).toBe(true);
    }
    expect(searchNodes(index, '   ')).toEqual([]);
  });
});

describe('datasets store', () => {
  it('synthesises questions of the graph and opens them; filters narrow the rows and reset the page', async () => {
    const datasets = useDatasets();
    await datasets.synthesise({ graphId: made.graphId, count: 12, rng: 1 });
    const view = await until('the new dataset to open', () => datasets.current, 90_000);
    made.trainId = datasets.currentId!;
    expect(datasets.rows).toHaveLength(view.qas.length);
    expect(datasets.pageRows.length).toBe(Math.min(PAGE_SIZE, view.qas.length));
    const qa = view.qas[0]!;
    datasets.page = 1;
    datasets.filters.text = qa.id;
    await until('the filter to apply', () => datasets.page === 0);
    expect(datasets.filtered.map((r) => r.qa.id)).toEqual([qa.id]);
    datasets.clearFilters();
    expect(datasets.filtered).toHaveLength(view.qas.length);
    const levels = datasets.facets.levels.reduce((a, [, n]) => a + n, 0);
    expect(levels).toBe(view.qas.length);
    await datasets.openQa(qa.id);
    expect(datasets.qaDetail?.qa.id).toBe(qa.id);
    expect(datasets.qaError).toBeNull();
    datasets.closeQa();
    expect(datasets.openQaId).toBeNull();
  });

  it('a second synthesis (held out) joins the list and opens instead', async () => {
    const datasets = useDatasets();
    await datasets.synthesise({ graphId: made.graphId, count: 4, rng: 2 });
    await until('the held-out set to open', () => datasets.currentId !== made.trainId && datasets.current, 90_000);
    made.heldOutId = datasets.currentId!;
    expect(datasets.list.map((d) => d.id).sort()).toEqual([made.trainId, made.heldOutId].sort());
  });
});

describe('runs store', () => {
  it('starts a run, selects it, and follows it live: status from job events, metrics from run.metrics', async () => {
    const runs = useRuns();
    await runs.load();
    expect(runs.list).toEqual([]);
    const summary = await runs.start({
      ...TINY_RUN,
      data: { graphId: made.graphId, datasetId: made.trainId, heldOutDatasetId: made.heldOutId },
      sft: { steps: 4, batchSize: 2, warmupSteps: 1 },
      eval: { every: 4, questions: 2 },
      checkpoint: { every: 2 },
      env: { maxToolCalls: 8 },
    });
    made.runId = summary.artefact.id;
    expect(runs.selected).toEqual([made.runId]);
    expect(runs.byId.get(made.runId)?.status).toBe('running');
    await until('the run to finish', () => runs.byId.get(made.runId)?.status === 'finished', 180_000);
    const m = await until('its metrics', () => {
      const x = runs.metricsOf(made.runId);
      return x?.loaded && (x.byName.get('sft/loss')?.values.length ?? 0) >= 4 ? x : null;
    });
    const loss = m.byName.get('sft/loss')!;
    expect(loss.steps).toEqual([1, 2, 3, 4]);
    expect(m.steps).toEqual([...new Set(m.steps)].sort((a, b) => a - b)); // unique and ascending
    await until('the finished summary', () => runs.byId.get(made.runId)?.lastStep === 4);
    expect(runs.byId.get(made.runId)!.metrics['sft/loss']?.last).toBe(loss.values.at(-1));
  });

  it('reads the run detail, keeps colours per selected run, and persists only the settings', async () => {
    const runs = useRuns();
    const detail = await runs.loadDetail(made.runId);
    expect(detail?.checkpoints.map((c) => c.step)).toEqual([2, 4]);
    const colour = runs.colourOf(made.runId);
    runs.toggle(made.runId, false);
    expect(runs.selected).toEqual([]);
    runs.toggle(made.runId);
    expect(runs.selected).toEqual([made.runId]);
    // Alone in the selection again, it gets the first free colour again: the same one.
    expect(colour).toMatch(/^#[0-9a-f]{6}$/i);
    expect(runs.colourOf(made.runId)).toBe(colour);
    runs.settings.smoothing = 0.3;
    await until('the settings to persist', () => localStorage.getItem('sailor.runs.settings')?.includes('0.3'));
  });
});

describe('compare store', () => {
  it('prefills the form from a run, starts a comparison job and opens the result', async () => {
    const compare = useCompare();
    await compare.loadInputs();
    compare.prefill([`${made.runId}/2`, `${made.runId}/4`]);
    expect(compare.form.datasetId).toBe(made.heldOutId); // the run's held-out questions
    compare.form.questions = 2;
    expect(compare.formErrors).toEqual({});
    expect(await compare.start()).toBe(true);
    const view = await until('the comparison to open', () => compare.current, 120_000);
    expect(view.checkpoints.map((c) => c.ref)).toEqual([`${made.runId}/2`, `${made.runId}/4`]);
    expect(compare.rows).toHaveLength(2);
    expect(Object.values(compare.tally).reduce((a, b) => a + b, 0)).toBe(2);
    compare.setPair('a', 1); // B's checkpoint on the A side: the two swap
    expect({ ...compare.pair }).toEqual({ a: 1, b: 0 });
    expect(compare.describe(`${made.runId}/4`).label).toBe('step 4');
  });
});

describe('trajectories store', () => {
  it('rolls out the expert on a dataset, opens the set and one trajectory', async () => {
    const traj = useTrajectories();
    await traj.load();
    const before = traj.list.length; // the comparison's two sets
    await traj.startRollout({ datasetId: made.trainId, graphId: made.graphId, policy: 'oracle', n: 1, limit: 3 });
    const set = await until('the rollouts to open', () => traj.current?.trajectories.length === 3 && traj.current, 90_000);
    expect(traj.list).toHaveLength(before + 1);
    expect(traj.filtered).toHaveLength(3);
    await traj.openTraj(set.trajectories[0]!.id);
    expect(traj.detail?.trajectory.id).toBe(set.trajectories[0]!.id);
    expect(traj.detailError).toBeNull();
  });
});
