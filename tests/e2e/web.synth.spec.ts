// The Graph explorer and the Datasets view in Debian Chromium against the real `sailor serve`: build a
// graph, search and inspect an entity, cycles, expansion order and explore mode; synthesise a dataset,
// filter it, open a QA, and jump from its answer to the Graph explorer.
import { expect, test } from '@playwright/test';
import type { GraphView } from '../../main/lab/contract';
import { SHOTS, servedLab, watchConsole } from './lab';

const { server, api } = servedLab();

test('build a graph, explore it, synthesise a dataset, open a QA, jump to its answer', async ({ page }) => {
  test.setTimeout(300_000);
  const consoleErrors = watchConsole(page);
  await page.goto(server.url + '#/graph');
  const content = page.locator('main.content');
  await expect(content).toHaveAttribute('data-section', 'graph');
  await expect(page.getByTestId('graph-canvas')).toContainText('No graphs yet');

  // A bad value is named beside its field in the form's words, and nothing is sent.
  await page.getByTestId('build-max-edges').fill('5');
  await page.getByTestId('build-start').click();
  await expect(page.getByTestId('build-error-maxEdges')).toHaveText('max edges: must be at least 10');
  await expect(page.getByTestId('build-job')).toHaveCount(0);

  // ---------- build ----------
  await page.getByTestId('build-rng').fill('7');
  await page.getByTestId('build-max-edges').fill('400');
  await page.getByTestId('build-start').click();
  await expect(page.getByTestId('build-job-error')).toHaveCount(0);
  await expect(page.getByTestId('build-job')).toBeVisible();
  await expect(page.getByTestId('build-job')).toHaveAttribute('data-status', 'succeeded', { timeout: 180_000 });
  await expect(page.getByTestId('graph-stats')).toContainText('400 edges', { timeout: 30_000 });
  await expect(page.getByTestId('build-job-message')).toHaveText('done');
  const canvas = page.getByTestId('graph-canvas');
  await expect(canvas.locator('[data-layout]')).toHaveAttribute('data-layout', 'ready', { timeout: 60_000 });
  await expect(canvas.locator('canvas').first()).toBeVisible();
  await expect(page.getByTestId('legend')).toContainText('country');
  await expect(page.getByTestId('graph-stats')).toContainText('cycle rank');
  await expect(page.getByTestId('graph-kb')).toContainText('from the bundled knowledge base, licences in About');
  await page.screenshot({ path: `${SHOTS}/graph-explorer.png` });

  // Pick an entity the walk found from another one (so it has a "found from" link) with a unique name.
  const [artefact] = await api<Array<{ id: string }>>(page, 'graphs.list');
  const view = await api<GraphView>(page, 'graphs.get', { id: artefact!.id });
  const names = new Map<string, number>();
  for (const n of view.graph.nodes) names.set(n.name, (names.get(n.name) ?? 0) + 1);
  const degree = (id: string): number => view.graph.edges.filter((e) => e.source === id || e.target === id).length;
  const target = view.graph.nodes
    .filter((n) => n.meta.found_from && n.meta.evidence && names.get(n.name) === 1 && n.name.length >= 5)
    .sort((a, b) => degree(b.id) - degree(a.id))[0]!;
  const from = view.graph.nodes.find((n) => n.id === target.meta.found_from)!;

  // ---------- search, select, provenance ----------
  const search = page.getByTestId('entity-search');
  await search.fill(target.name.slice(0, Math.min(target.name.length, 6)));
  await expect(page.getByTestId('search-option').first()).toBeVisible();
  await search.fill(target.name);
  await expect(page.getByTestId('search-option').first()).toContainText(target.name);
  await page.getByTestId('search-option').first().click();
  await expect(page.getByTestId('panel-name')).toHaveText(target.name);
  const prov = page.getByTestId('node-provenance');
  await expect(prov).toContainText('found at step');
  await expect(page.getByTestId('prov-step')).toHaveText(String(target.meta.found_at_step));
  await expect(page.getByTestId('prov-from')).toHaveText(from.name);
  await expect(page.getByTestId('prov-source')).toHaveText(String(target.meta.source));
  await expect(page.getByTestId('prov-evidence')).toHaveText(String(target.meta.evidence));
  await expect(page.getByTestId('prov-seen')).toContainText(String(target.meta.seen));
  await expect(page.getByTestId('nb-group').first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/graph-node-selected.png` });

  // An edge's evidence, from the neighbour list.
  await page.getByTestId('nb-edge').first().click();
  await expect(page.getByTestId('panel-edge')).toContainText('→');
  await expect(page.getByTestId('edge-provenance')).toContainText('closes cycle');
  // Provenance links are live: back to the node, then to where the walk found it.
  await page.getByTestId('panel-edge').getByRole('link').first().click();
  await expect(page.getByTestId('panel-name')).toBeVisible();
  await search.fill(target.name);
  await page.getByTestId('search-option').first().click();
  await expect(page.getByTestId('panel-name')).toHaveText(target.name);
  await page.getByTestId('prov-from').click();
  await expect(page.getByTestId('panel-name')).toHaveText(from.name);

  // ---------- cycles ----------
  await page.getByTestId('cycles-toggle').check();
  await expect(page.getByTestId('cycles-toggle')).toBeChecked();

  // ---------- expansion order ----------
  const slider = page.getByTestId('step-slider');
  const maxStep = Number(await slider.getAttribute('max'));
  expect(maxStep).toBeGreaterThan(5);
  await expect(page.getByTestId('step-label')).toHaveText(`step ${maxStep}/${maxStep}`);
  await slider.fill('0');
  await expect(page.getByTestId('step-label')).toHaveText(`step 0/${maxStep}`);
  await expect(page.getByTestId('shown-count')).toContainText('showing 1 node, 0 edges');
  await slider.fill(String(Math.floor(maxStep / 2)));
  await expect(page.getByTestId('step-label')).toHaveText(`step ${Math.floor(maxStep / 2)}/${maxStep}`);
  await page.getByTestId('step-play').click();
  await expect(page.getByTestId('step-label')).not.toHaveText(`step ${Math.floor(maxStep / 2)}/${maxStep}`);
  await page.getByTestId('step-play').click(); // pause
  await slider.fill(String(maxStep));
  await expect(page.getByTestId('shown-count')).toContainText(`showing ${view.graph.nodes.length} nodes, ${view.graph.edges.length} edges`);
  await page.screenshot({ path: `${SHOTS}/graph-cycles.png` });
  await page.getByTestId('cycles-toggle').uncheck();

  // ---------- explore mode ----------
  await page.getByTestId('explore-here').click();
  await expect(page.getByTestId('shown-count')).toContainText('explore mode');
  const before = Number(/showing (\d+) nodes/.exec((await page.getByTestId('shown-count').textContent()) ?? '')![1]);
  await page.getByTestId('nb-node').first().click();
  await page.getByTestId('expand-node').click();
  await expect
    .poll(async () => Number(/showing (\d+) nodes/.exec((await page.getByTestId('shown-count').textContent()) ?? '')![1]))
    .toBeGreaterThanOrEqual(before);
  await expect(canvas).toHaveAttribute('data-relayout', 'false');
  await page.screenshot({ path: `${SHOTS}/graph-explore.png` });
  await page.getByTestId('explore-toggle').click();
  await expect(page.getByTestId('shown-count')).not.toContainText('explore mode');

  // ---------- synthesise ----------
  await page.getByTestId('nav-datasets').click();
  await expect(content).toHaveAttribute('data-section', 'datasets');
  await expect(page.getByTestId('datasets-empty')).toBeVisible();
  await expect(page.getByTestId('synth-graph')).toHaveValue(artefact!.id);
  await page.getByTestId('synth-count').fill('0');
  await page.getByTestId('synth-start').click();
  await expect(page.getByTestId('synth-error-count')).toHaveText('QAs: must be at least 1');
  await expect(page.getByTestId('synth-job')).toHaveCount(0);
  await page.getByTestId('synth-count').fill('40');
  await page.getByTestId('synth-rng').fill('1');
  await page.getByTestId('synth-start').click();
  await expect(page.getByTestId('synth-job')).toHaveAttribute('data-status', 'succeeded', { timeout: 180_000 });
  await expect(page.getByTestId('qa-count')).toHaveText('40 of 40', { timeout: 30_000 });
  await expect(page.getByTestId('stats-topologies')).toBeVisible();
  await expect(page.getByTestId('stats-kinds')).toBeVisible();
  await expect(page.getByTestId('stats-levels')).toContainText('level');
  await expect(page.getByTestId('stats-coverage')).toContainText('/');
  await expect(page.getByTestId('qa-row')).toHaveCount(40);
  await page.screenshot({ path: `${SHOTS}/datasets-list.png` });

  // ---------- filter ----------
  const topologies = await page.getByTestId('filter-topology').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
  expect(topologies.length).toBeGreaterThan(0);
  const topo = topologies[0]!;
  await page.getByTestId('filter-topology').selectOption(topo);
  const rows = page.getByTestId('qa-row');
  await expect(page.getByTestId('qa-count')).not.toHaveText('40 of 40');
  const n = await rows.count();
  expect(n).toBeGreaterThan(0);
  for (let i = 0; i < n; i++) await expect(rows.nth(i)).toHaveAttribute('data-topology', topo);
  await page.getByTestId('filter-text').fill('zzzz-no-such-question');
  await expect(page.getByTestId('qa-table')).toContainText('No QA matches');
  await page.getByTestId('filter-text').fill('');
  await expect(rows).toHaveCount(n);

  // ---------- open a QA (one with obfuscations) ----------
  const dsList = await api<Array<{ id: string }>>(page, 'datasets.list');
  const ds = await api<{ qas: Array<{ id: string; topology: string; obfuscations: unknown[]; answer: string }> }>(page, 'datasets.get', { id: dsList[0]!.id });
  const qa = ds.qas.find((q) => q.topology === topo && q.obfuscations.length > 0) ?? ds.qas.find((q) => q.topology === topo)!;
  await page.locator(`[data-testid="qa-row"][data-qa-id="${qa.id}"]`).click();
  const detail = page.getByTestId('qa-detail');
  await expect(detail).toHaveAttribute('data-qa-id', qa.id);
  await expect(page.getByTestId('qa-question')).not.toBeEmpty();
  await expect(page.getByTestId('qa-answer')).toContainText(qa.answer);
  await expect(page.getByTestId('qa-query')).toContainText('find ?a');
  await expect(page.getByTestId('qa-pattern').first()).toContainText(/—\w+→/);
  if (qa.obfuscations.length) await expect(page.getByTestId('qa-obfuscation')).toHaveCount(qa.obfuscations.length);
  await page.getByTestId('qa-json-toggle').click();
  await expect(page.getByTestId('qa-json')).toContainText('"patterns"');
  await expect(page.getByTestId('qa-subgraph').locator('[data-layout]')).toHaveAttribute('data-layout', 'ready');
  await expect(page.getByTestId('qa-subgraph').locator('canvas').first()).toBeVisible();
  await expect(page.getByTestId('orbit-answer')).toContainText("answer's orbit");
  await page.getByTestId('qa-json-toggle').click();
  await page.screenshot({ path: `${SHOTS}/dataset-qa-open.png` });

  // ---------- jump to the answer in the Graph explorer ----------
  await page.getByTestId('show-in-graph').click();
  await expect(content).toHaveAttribute('data-section', 'graph');
  await expect(page.getByTestId('panel-name')).toHaveText(qa.answer);
  await page.screenshot({ path: `${SHOTS}/graph-focused-answer.png` });

  // Back to Datasets: the open QA and the filter are still there.
  await page.getByTestId('nav-datasets').click();
  await expect(page.getByTestId('qa-detail')).toHaveAttribute('data-qa-id', qa.id);
  await expect(page.getByTestId('filter-topology')).toHaveValue(topo);

  expect(consoleErrors).toEqual([]);
});
