// The Graph explorer's build form on one's own knowledge base (issue #48): each route's fields, then a graph
// built from a Wikidata-shaped RDF dump through the form, shown with the licence and source the dump states.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servedLab, shooter, watchConsole } from './lab';
import { wikidataClassTriples, wikidataEntityTriples } from '../support/wikidata-truthy';

const { server } = servedLab();
const shot = shooter('kb');

test('build a graph from an RDF dump in the form; the explorer shows its source and licence', async ({ page }) => {
  test.setTimeout(240_000);
  const consoleErrors = watchConsole(page);
  const dump = join(mkdtempSync(join(tmpdir(), 'sailor-kb-e2e-')), 'latest-truthy.nt.gz');
  const lines = [...wikidataClassTriples()];
  for (let i = 0; i < 600; i++) lines.push(...wikidataEntityTriples(i, 600));
  writeFileSync(dump, gzipSync(lines.join('\n') + '\n'));

  await page.goto(server.url + '#/graph');
  const form = page.getByTestId('build-form');
  const routes = [
    { name: 'wikidata-json', kb: 'wikidata:/data/latest-all.json.gz', mapping: '', seed: 'Q142' },
    { name: 'sparql', kb: 'sparql:https://query.wikidata.org/sparql', mapping: 'wikidata', seed: 'wd:Q142' },
    { name: 'rdf', kb: `rdf:${dump}`, mapping: 'wikidata', seed: 'Q1000003' },
  ];
  for (const r of routes) {
    await form.getByTestId('build-kb').fill(r.kb);
    await form.getByTestId('build-mapping').fill(r.mapping);
    await form.getByTestId('build-seed').fill(r.seed);
    await expect(form.locator('.field-error:visible')).toHaveCount(0);
    await shot(page, `form-${r.name}`);
  }
  await form.getByTestId('build-kb').fill('ftp:dump.nt');
  await expect(form.getByTestId('build-error-kb')).toContainText('expected bundled, rdf:FILE, wikidata:FILE or sparql:URL');
  await form.getByTestId('build-kb').fill(`rdf:${dump}`);
  await form.getByTestId('build-max-edges').fill('150');
  await form.getByTestId('build-start').click();
  await expect(page.getByTestId('build-job')).toHaveAttribute('data-status', 'succeeded', { timeout: 180_000 });
  await expect(page.getByTestId('graph-stats')).toContainText('150 edges', { timeout: 30_000 });
  const kb = page.getByTestId('graph-kb');
  await expect(kb).toContainText('from Wikidata');
  await expect(page.getByTestId('graph-kb-licence')).toHaveText('http://creativecommons.org/publicdomain/zero/1.0/');
  await expect(kb.locator('a')).toHaveAttribute('href', 'https://www.wikidata.org/');
  await expect(kb).toHaveAttribute('title', `knowledge base rdf:${dump}, mapping wikidata`);
  await expect(page.getByTestId('graph-canvas').locator('[data-layout]')).toHaveAttribute('data-layout', 'ready', { timeout: 60_000 });
  await expect(page.getByTestId('legend')).toContainText('country');
  await shot(page, 'imported-graph');

  // About lists it beside the bundled packages' licences.
  await page.getByTestId('nav-about').click();
  const about = page.getByTestId('about-imported-kbs');
  await expect(about).toContainText('Wikidata');
  await expect(about).toContainText("http://creativecommons.org/publicdomain/zero/1.0/ (the dump's)");
  await expect(about).toContainText(`rdf:${dump}, mapping wikidata`);
  await about.scrollIntoViewIfNeeded();
  await shot(page, 'about');
  expect(consoleErrors).toEqual([]);
});
