// The typed bridge: exposes exactly the contract to the page, as named functions, and nothing else.
// Types vanish once bundled, so method and event names are checked again here at run time.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENT_NAMES, METHOD_NAMES, isEventName, isMethodName, type EventName, type SailorBridge, type WireError } from '../main/lab/contract';

type Envelope = { ok: true; result: unknown } | { ok: false; error: WireError };

async function call(method: string, params: unknown): Promise<unknown> {
  if (!isMethodName(method)) throw new Error(`unknown method '${method}'`);
  const reply = (await ipcRenderer.invoke('lab:call', method, params ?? {})) as Envelope;
  if (reply.ok) return reply.result;
  const err: Error & { issues?: WireError['issues'] } = new Error(reply.error.message);
  err.name = reply.error.code;
  // The bad fields, for a form to mark (the renderer falls back on the message if the bridge drops them).
  if (reply.error.issues) err.issues = reply.error.issues;
  throw err;
}

const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
ipcRenderer.on('lab:event', (_event: IpcRendererEvent, name: unknown, payload: unknown) => {
  if (!isEventName(name)) return;
  for (const listener of listeners.get(name) ?? []) listener(payload);
});

// Each method's result is what main answered for it: the contract's result type, which main's dispatch is typed by.
const api = Object.fromEntries(METHOD_NAMES.map((m) => [m, (params?: unknown) => call(m, params)])) as SailorBridge['api'];

const bridge: SailorBridge = {
  methods: [...METHOD_NAMES],
  events: [...EVENT_NAMES],
  api,
  on(event, listener) {
    if (!isEventName(event)) throw new Error(`unknown event '${event}'`);
    if (typeof listener !== 'function') throw new Error('listener must be a function');
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    const l = listener as (payload: unknown) => void;
    set.add(l);
    return () => set.delete(l);
  },
};

contextBridge.exposeInMainWorld('sailor', bridge);
