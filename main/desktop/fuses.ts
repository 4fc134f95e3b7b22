// Electron fuses for the packaged app: switches compiled into the Electron binary that no flag, variable or
// script can turn back at run time. This module is both the configuration (unit-tested) and the step the
// packager runs on its output:
//   electron-builder.yml: `afterPack: main/desktop/fuses.ts` calls `afterPack(context)` (`npm run dist` runs
//   the builder under tsx, which loads this file); tests/unit/packaging.test.ts reads the fuses back from a
//   packaged binary; any other packager, or by hand: `npm run fuses -- <path to the packaged Electron binary>`.
// The ASAR fuses assume the app is packed into resources/app.asar with its integrity hash (electron-builder's default).
import { flipFuses, FuseV1Options, FuseVersion, type FuseV1Config } from '@electron/fuses';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FUSE_CONFIG = {
  version: FuseVersion.V1,
  // Fail when an Electron upgrade adds a fuse this config does not decide.
  strictlyRequireAllFuses: true,
  // Re-sign ad hoc on macOS arm64, where a binary with a changed fuse wire would not start unsigned.
  resetAdHocDarwinSignature: process.platform === 'darwin',
  [FuseV1Options.RunAsNode]: false, // ELECTRON_RUN_AS_NODE cannot turn the app into a plain node
  [FuseV1Options.EnableCookieEncryption]: true, // cookies on disk encrypted with the OS keychain
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false, // NODE_OPTIONS cannot inject code
  [FuseV1Options.EnableNodeCliInspectArguments]: false, // --inspect cannot attach a debugger
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true, // a tampered app.asar does not load
  [FuseV1Options.OnlyLoadAppFromAsar]: true, // no app folder beside the asar is loaded instead of it
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false, // the one stock snapshot
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: false, // the app loads from app://, file:// gets no extras
} satisfies FuseV1Config;

/** Flips the fuses in one packaged Electron binary. */
export async function applyFuses(electronBinary: string): Promise<void> {
  await flipFuses(electronBinary, FUSE_CONFIG);
}

/** The Electron binary inside a packaged app folder, by platform (electron-builder's layout). */
export function packagedBinary(appOutDir: string, platform: NodeJS.Platform, productFilename: string, executableName = productFilename): string {
  if (platform === 'darwin') return join(appOutDir, `${productFilename}.app`, 'Contents', 'MacOS', productFilename);
  if (platform === 'win32') return join(appOutDir, `${productFilename}.exe`);
  return join(appOutDir, executableName);
}

/** The part of electron-builder's afterPack context this hook reads. */
export interface AfterPackContext {
  appOutDir: string;
  electronPlatformName: NodeJS.Platform;
  packager: { appInfo: { productFilename: string }; executableName?: string };
}

/** electron-builder's afterPack hook. */
export async function afterPack(context: AfterPackContext): Promise<void> {
  const { appOutDir, electronPlatformName, packager } = context;
  await applyFuses(packagedBinary(appOutDir, electronPlatformName, packager.appInfo.productFilename, packager.executableName));
}

export default afterPack;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const binary = process.argv[2];
  if (!binary) {
    console.error('usage: npm run fuses -- <path to the packaged Electron binary>');
    process.exit(2);
  }
  await applyFuses(binary);
  console.error(`fuses set in ${binary}`);
}
