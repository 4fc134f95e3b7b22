// The installers' configuration (electron-builder.yml, main/desktop/dist.ts), checked without the Electron
// binary: the config against electron-builder's own schema and validator, and everything the packaged app
// reads at run time against the config's file patterns, matched by electron-builder's own matcher. Where a
// packaged app exists (CI runs `npm run dist -- --dir` first; SAILOR_PACKED_APP names another), the same
// list is checked inside its app.asar, and its Electron binary's fuses against main/desktop/fuses.ts.
import { getCurrentFuseWire } from '@electron/fuses';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import viteConfig from '../../electron.vite.config';
import { builderPlatform, readBuilderConfig, rootCause, targetArches, type BuilderConfig } from '../../main/desktop/dist';
import { FUSE_CONFIG, packagedBinary } from '../../main/desktop/fuses';
import { KB_PACKAGES } from '../../main/lab/kb/index';
import { appRoot, appVersion } from '../../main/lab/base/paths';

const root = appRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { productName: string; dependencies: Record<string, string> };
const config = readBuilderConfig(root);

// electron-builder's own parts, from its install (app-builder-lib is the library behind the CLI).
const fromBuilder = createRequire(createRequire(import.meta.url).resolve('app-builder-lib/package.json'));
const { validateConfiguration } = fromBuilder('./out/util/config/config.js') as {
  validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(key: string, value: unknown): void }): Promise<void>;
};
const { FileMatcher } = fromBuilder('./out/fileMatcher.js') as {
  FileMatcher: new (from: string, to: string, expand: (p: string) => string, patterns: string[]) => { createFilter(): (file: string, stat: { isDirectory(): boolean }) => boolean };
};
const asar = fromBuilder('@electron/asar') as { listPackage(archive: string, options: { isPack: boolean }): string[] };
const validate = (c: unknown): Promise<void> => validateConfiguration(c, { isEnabled: false, add: () => {} });

/**
 * Whether a path (relative to the project) is packed by these patterns. As electron-builder does, package.json
 * is added, and the production node modules are packed unless a pattern excludes them.
 */
function matcher(patterns: string[]): (path: string) => boolean {
  const filter = new FileMatcher(root, '', (p) => p, [...patterns, 'package.json']).createFilter();
  const file = { isDirectory: () => false };
  const moduleFilter = new FileMatcher(root, '', (p) => p, ['**/*', ...patterns]).createFilter();
  return (path) => (path.startsWith('node_modules/') ? moduleFilter : filter)(join(root, path), file);
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

const rollupInput = (viteConfig as { main: { build: { rollupOptions: { input: Record<string, string> } } } }).main.build.rollupOptions.input;

/** Everything the packaged app reads at run time, relative to the app folder (the root of app.asar). */
function runtimeReads(): string[] {
  const mainEntries = Object.keys(rollupInput).map((name) => `out/main/${name}.js`); // index, and each worker thread's entry
  const resources = filesUnder(join(root, 'resources')).filter((f) => !f.startsWith('resources/icons/'));
  // The knowledge base is read from its data packages' folders: all but their docs, types, tests and source maps.
  const notRead = /(\/\.[^/]*|\/test\/.*|\/readme[^/]*|\.md|\.d\.ts|\.map)$/i;
  const kb = KB_PACKAGES.flatMap((name) => filesUnder(join(root, 'node_modules', name))).filter((f) => !notRead.test(f));
  const wasm = filesUnder(join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist')).filter((f) => f.endsWith('.wasm'));
  // Once built, every file of out/ (the entries' chunks, the renderer's assets) but source maps.
  const built = existsSync(join(root, 'out')) ? filesUnder(join(root, 'out')).filter((f) => !f.endsWith('.map')) : [];
  const entries = ['package.json', ...mainEntries, 'out/preload/index.cjs', 'out/renderer/index.html', ...built, ...resources, ...kb, ...wasm];
  return [...new Set(entries)];
}

/** The bare module names main/ imports (type-only imports are erased, so left out). */
function mainImports(): Set<string> {
  const names = new Set<string>();
  for (const file of filesUnder(join(root, 'main')).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/(?:^import (?!type )[^;]*? from |\bimport\(|\brequire\()\s*'([^'./][^']*)'/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('node:')) continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return names;
}

describe('electron-builder configuration', () => {
  it("passes electron-builder's own schema and validator, with the options npm run dist adds", async () => {
    await expect(validate(config)).resolves.toBeUndefined();
    await expect(validate({ ...config, electronDownload: { checksums: { 'electron-v1.0.0-linux-x64.zip': '0'.repeat(64) } } })).resolves.toBeUndefined();
  });

  it('is refused by the same validator when an option is misspelt or mistyped', async () => {
    await expect(validate({ ...config, asarUnpak: ['**/*.node'] })).rejects.toThrow(/unknown property 'asarUnpak'/);
    await expect(validate({ ...config, mac: { ...(config.mac as object), target: 42 } })).rejects.toThrow(/configuration\.mac\.target/);
  });

  it('builds AppImage and deb, a dmg for both Mac architectures, NSIS; ASAR on; fuses after packing; icon in resources/', () => {
    expect(config).toMatchObject({
      asar: true,
      afterPack: 'main/desktop/fuses.ts',
      linux: { target: ['AppImage', 'deb'] },
      mac: { target: [{ target: 'dmg', arch: ['x64', 'arm64'] }] },
      win: { target: ['nsis'] },
    });
    expect(existsSync(join(root, config.afterPack as string))).toBe(true);
    expect(existsSync(join(root, config.icon as string))).toBe(true);
    // Name and version are package.json's, not repeated here.
    expect(config).not.toHaveProperty('productName');
    expect(config).not.toHaveProperty('extraMetadata');
    expect(pkg.productName).toBe('Sailor Lab');
    expect(appVersion()).toBe((pkg as unknown as { version: string }).version); // what About and doctor show
  });

  it('packs everything the app reads at run time: its bundles, resources/, the knowledge-base packages, the wasm kernels', () => {
    const packed = matcher(config.files as string[]);
    const reads = runtimeReads();
    expect(reads.length).toBeGreaterThan(50);
    expect(reads.filter((f) => !packed(f))).toEqual([]);
    // What it leaves out stays out.
    for (const f of ['out/main/index.js.map', 'resources/icons/icon.png', 'bin/sailor.mjs', 'tests/unit/packaging.test.ts', 'node_modules/vue/package.json']) expect(packed(f), f).toBe(false);
  });

  it('leaves out only packages that main never imports, and keeps every dependency it does', () => {
    const packed = matcher(config.files as string[]);
    const imported = mainImports();
    expect(imported.has('@tensorflow/tfjs')).toBe(true);
    for (const name of Object.keys(pkg.dependencies)) {
      if (imported.has(name)) expect(packed(`node_modules/${name}/package.json`), name).toBe(true);
    }
    for (const name of ['vue', 'pinia', 'cytoscape', 'uplot', 'tsx']) {
      expect(packed(`node_modules/${name}/package.json`), name).toBe(false);
      expect(imported.has(name), `main imports ${name}, which the installers leave out`).toBe(false);
    }
  });

  it('unpacks native addons, which cannot load from inside an ASAR', () => {
    const unpacked = matcher(config.asarUnpack as string[]);
    expect(unpacked('node_modules/some-addon/build/Release/addon.node')).toBe(true);
    expect(unpacked('out/main/index.js')).toBe(false);
  });
});

describe('npm run dist', () => {
  it('names the platform section and the architectures to fetch Electron for', () => {
    expect([builderPlatform('linux'), builderPlatform('darwin'), builderPlatform('win32'), builderPlatform('aix')]).toEqual(['linux', 'mac', 'win', null]);
    expect(targetArches(config, 'mac', 'arm64')).toEqual(['x64', 'arm64']);
    expect(targetArches(config, 'linux', 'arm64')).toEqual(['arm64']); // unnamed: this machine's
    const named: BuilderConfig = { win: { target: [{ target: 'nsis', arch: 'ia32' }, { target: 'zip', arch: ['ia32', 'x64'] }] } };
    expect(targetArches(named, 'win', 'x64')).toEqual(['ia32', 'x64']);
  });

  it('says why a fetch failed in one line, from the innermost cause', () => {
    const offline = new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND github.com') });
    expect(rootCause(offline)).toBe('getaddrinfo ENOTFOUND github.com');
    expect(rootCause(new Error('first line\n    at stack'))).toBe('first line');
    expect(rootCause('plain')).toBe('plain');
  });
});

/** The folder `npm run dist -- --dir` made for this platform, if there is one. */
function packedApp(): { asar: string; binary: string } | null {
  const platform = process.platform;
  const dir = process.env.SAILOR_PACKED_APP ??
    (platform === 'darwin' ? join(root, 'dist', process.arch === 'arm64' ? 'mac-arm64' : 'mac') : join(root, 'dist', `${builderPlatform(platform)}-unpacked`));
  const resources = platform === 'darwin' ? join(dir, `${pkg.productName}.app`, 'Contents', 'Resources') : join(dir, 'resources');
  const asarFile = join(resources, 'app.asar');
  if (!existsSync(asarFile)) return null;
  const linux = config.linux as { executableName?: string };
  return { asar: asarFile, binary: packagedBinary(dir, platform, pkg.productName, linux.executableName) };
}

const app = packedApp();

describe.skipIf(!app)(`the packaged app${app ? ` (${app.asar})` : ''}`, () => {
  it('has everything the app reads at run time in its app.asar', () => {
    const inside = new Set(asar.listPackage(app!.asar, { isPack: false }).map((p) => p.replaceAll('\\', '/').replace(/^\//, '')));
    expect(runtimeReads().filter((f) => !inside.has(f))).toEqual([]);
    expect(statSync(app!.asar).size).toBeGreaterThan(1e6);
  });

  it('has its Electron fuses set as main/desktop/fuses.ts says', async () => {
    const wire = (await getCurrentFuseWire(app!.binary)) as unknown as Record<number, number>;
    const ENABLE = '1'.charCodeAt(0);
    const DISABLE = '0'.charCodeAt(0);
    for (const [fuse, on] of Object.entries(FUSE_CONFIG)) {
      if (!/^\d+$/.test(fuse)) continue; // version, strictlyRequireAllFuses, resetAdHocDarwinSignature
      expect(wire[Number(fuse)], `fuse ${fuse}`).toBe(on ? ENABLE : DISABLE);
    }
  });
});
