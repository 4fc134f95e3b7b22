import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KB_PACKAGES, packageVersions } from '../../main/lab/kb/sources';

const dir = join(import.meta.dirname, '..', '..', 'resources', 'licenses');

describe('resources/licenses', () => {
  it('lists every KB package at its installed version, with a notice file (regenerate: npx tsx bench/release/kb-licenses.ts)', () => {
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { package: string; version: string; license: string; attribution: string; file: string }[];
    const versions = packageVersions();
    expect(index.map((e) => e.package).sort()).toEqual([...KB_PACKAGES].sort());
    for (const entry of index) {
      expect(entry.version, entry.package).toBe(versions[entry.package as keyof typeof versions]);
      expect(entry.license.length).toBeGreaterThan(2);
      expect(entry.attribution.length).toBeGreaterThan(40);
      expect(existsSync(join(dir, entry.file)), entry.file).toBe(true);
    }
  });
});
