// Picks the transport once: the preload bridge in the desktop app, HTTP/WebSocket in a browser.
// Only the stores (renderer/src/stores) call the lab; views and components go through them.
import { getCurrentScope, onScopeDispose } from 'vue';
import type { EventName, EventPayloads, LabClient } from '@contract';
import { desktopClient } from './desktop';
import { webClient } from './web';

let client: LabClient | null = null;

export function lab(): LabClient {
  client ??= window.sailor ? desktopClient(window.sailor) : webClient();
  return client;
}

/**
 * Listens to a lab event for as long as the caller lives: a setup store until it is disposed, a
 * component (or a composable called in one) until it unmounts. Without this a component that listens
 * leaves a listener behind on every mount.
 */
export function onLab<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
  const off = lab().on(event, listener);
  if (getCurrentScope()) onScopeDispose(off);
  return off;
}
