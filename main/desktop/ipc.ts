// The IPC edge of the desktop app: one channel for calls, one for events. Every call is checked for
// its sender (our own page only) and then validated by the core like any web request.
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { EVENT_NAMES, wireErrorOf } from '../lab/contract';
import type { LabCore } from '../lab/app/core';
import { errorMessage, LabError } from '../lab/base/errors';

export const CALL_CHANNEL = 'lab:call';
export const EVENT_CHANNEL = 'lab:event';

export function registerIpc(core: LabCore, isTrustedUrl: (url: string) => boolean, targets: () => WebContents[]): () => void {
  ipcMain.handle(CALL_CHANNEL, async (event: IpcMainInvokeEvent, method: unknown, params: unknown) => {
    const frame = event.senderFrame;
    if (!frame || !isTrustedUrl(frame.url)) {
      return { ok: false, error: { code: 'bad_request', message: 'IPC from an untrusted frame was refused' } };
    }
    try {
      const result = await core.call(String(method), params);
      return { ok: true, result: result ?? null };
    } catch (err) {
      return { ok: false, error: wireErrorOf(err instanceof LabError ? err.code : 'internal', errorMessage(err), err instanceof LabError ? err.details : undefined) };
    }
  });
  const offs = EVENT_NAMES.map((name) =>
    core.on(name, (payload) => {
      for (const wc of targets()) if (!wc.isDestroyed()) wc.send(EVENT_CHANNEL, name, payload);
    }),
  );
  return () => {
    ipcMain.removeHandler(CALL_CHANNEL);
    offs.forEach((off) => off());
  };
}
