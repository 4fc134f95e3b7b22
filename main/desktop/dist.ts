// `npm run dist`: the desktop installers for this platform, into dist/ (electron-builder.yml says which).
// Build tooling, run under tsx, never bundled into the app (tsx also lets electron-builder load the
// `afterPack` hook, main/desktop/fuses.ts).
//
// The installers are made from Electron's own binary for each target (a zip per platform and arch). Before
// building anything it is fetched the way `npm start` fetches its binary (electron's @electron/get and the
// checksums the electron package ships), into the same cache, so a machine that has run the desktop app
// packages for its own platform offline. Where it cannot be fetched the command says so in one line.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { electronStatus } from '../lab/app/electron-status';
import { appRoot, electronViteCli } from '../lab/base/paths';

export const BUILDER_CONFIG_FILE = 'electron-builder.yml';

/** electron-builder's name for a platform's section of the config. */
export type BuilderPlatform = 'mac' | 'linux' | 'win';

export function builderPlatform(platform: NodeJS.Platform): BuilderPlatform | null {
  return platform === 'darwin' ? 'mac' : platform === 'win32' ? 'win' : platform === 'linux' ? 'linux' : null;
}

/** Electron's release name for a platform, as in its zips (electron-v45.4.1-darwin-arm64.zip). */
const ELECTRON_PLATFORM: Record<BuilderPlatform, string> = { mac: 'darwin', linux: 'linux', win: 'win32' };

type TargetEntry = string | { target: string; arch?: string | string[] };

/** The builder config as far as this script reads it. */
export interface BuilderConfig {
  [platform: string]: unknown;
}

/**
 * The architectures a platform's installers are built for: those its targets name in the config, else this
 * machine's (electron-builder's own default).
 */
export function targetArches(config: BuilderConfig, platform: BuilderPlatform, hostArch: string): string[] {
  const section = config[platform] as { target?: TargetEntry | TargetEntry[] } | undefined;
  const targets = section?.target === undefined ? [] : Array.isArray(section.target) ? section.target : [section.target];
  const named = targets.flatMap((t) => (typeof t === 'string' || t.arch === undefined ? [] : Array.isArray(t.arch) ? t.arch : [t.arch]));
  return named.length > 0 ? [...new Set(named)] : [hostArch];
}

/** The innermost message of an error (fetch wraps the network's reason in `cause`), on one line. */
export function rootCause(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  const message = e instanceof Error ? e.message : String(e);
  return message.split('\n')[0]!.trim().slice(0, 200) || 'unknown error';
}

export function readBuilderConfig(root = appRoot()): BuilderConfig {
  return parseYaml(readFileSync(join(root, BUILDER_CONFIG_FILE), 'utf8')) as BuilderConfig;
}

interface ElectronGet {
  downloadArtifact(details: { version: string; artifactName: string; platform: string; arch: string; checksums: Record<string, string> }): Promise<string>;
}

/** Electron's downloader and the checksums of its release, from the installed electron package. */
async function electronFetcher(): Promise<{ get: ElectronGet; checksums: Record<string, string> }> {
  const fromElectron = createRequire(createRequire(import.meta.url).resolve('electron/package.json'));
  const get = (await import(pathToFileURL(fromElectron.resolve('@electron/get')).href)) as ElectronGet;
  return { get, checksums: fromElectron('./checksums.json') as Record<string, string> };
}

function fail(line: string): never {
  console.error(`npm run dist: ${line}`);
  process.exit(1);
}

async function main(args: string[]): Promise<void> {
  const dirOnly = args.includes('--dir'); // the unpacked app only (dist/<platform>-unpacked), no installer
  const platform = builderPlatform(process.platform) ?? fail(`no installer is configured for ${process.platform}`);
  const electron = electronStatus();
  if (!electron.version) fail(electron.detail);
  const version = electron.version;

  const config = readBuilderConfig();
  const { get, checksums } = await electronFetcher();
  for (const arch of targetArches(config, platform, process.arch)) {
    const name = `${ELECTRON_PLATFORM[platform]}-${arch}`;
    try {
      await get.downloadArtifact({ version, artifactName: 'electron', platform: ELECTRON_PLATFORM[platform], arch, checksums });
    } catch (err) {
      fail(`cannot fetch the Electron ${version} binary for ${name} (${rootCause(err)}); the installers are made from it: run this where github.com is reachable, or set ELECTRON_MIRROR`);
    }
  }

  const built = spawnSync(process.execPath, [electronViteCli(), 'build'], { cwd: appRoot(), stdio: 'inherit' });
  if (built.status !== 0) fail('building the app (electron-vite build) failed; see above');

  const { build, Platform } = await import('electron-builder');
  const target = { mac: Platform.MAC, linux: Platform.LINUX, win: Platform.WINDOWS }[platform];
  try {
    const files = await build({
      projectDir: appRoot(),
      targets: target.createTarget(dirOnly ? 'dir' : null),
      // The same checksums as the fetch above, so the builder finds the cached zip without asking the network.
      config: { electronDownload: { checksums } },
      publish: 'never',
    });
    console.error(`npm run dist: built ${files.length === 0 ? join('dist', `${platform}-unpacked`) : files.map((f) => f.slice(appRoot().length + 1)).join(', ')}`);
  } catch (err) {
    fail(`packaging failed: ${rootCause(err)}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
