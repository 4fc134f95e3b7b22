// The desktop transport: the preload bridge (window.sailor), exposed by Electron's contextBridge.
import type { EventName, EventPayloads, LabClient, MethodName, MethodParams, MethodResult, SailorBridge } from '@contract';

declare global {
  interface Window {
    sailor?: SailorBridge;
  }
}

export function desktopClient(bridge: SailorBridge): LabClient {
  return {
    transport: 'desktop',
    call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>> {
      // Checked at run time too: a bridge from another build may lack a method.
      const fn = bridge.api[method] as SailorBridge['api'][M] | undefined;
      if (!fn) return Promise.reject(new Error(`the desktop bridge has no method '${method}'`));
      return fn(params); // the preload sends {} for none
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
      return bridge.on(event, listener);
    },
  };
}
