// The desktop transport: the preload bridge (window.sailor), exposed by Electron's contextBridge.
import type { EventName, EventPayloads, LabClient, MethodName, MethodParams, MethodResult } from '@contract';

export interface SailorBridge {
  methods: string[];
  events: string[];
  api: Record<string, (params?: unknown) => Promise<unknown>>;
  on(event: string, listener: (payload: unknown) => void): () => void;
}

declare global {
  interface Window {
    sailor?: SailorBridge;
  }
}

export function desktopClient(bridge: SailorBridge): LabClient {
  return {
    transport: 'desktop',
    call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>> {
      const fn = bridge.api[method];
      if (!fn) return Promise.reject(new Error(`the desktop bridge has no method '${method}'`));
      return fn(params ?? {}) as Promise<MethodResult<M>>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
      return bridge.on(event, listener as (payload: unknown) => void);
    },
  };
}
