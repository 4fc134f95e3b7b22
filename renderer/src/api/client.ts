// Picks the transport once: the preload bridge in the desktop app, HTTP/WebSocket in a browser.
import type { LabClient } from '@contract';
import { desktopClient } from './desktop';
import { webClient } from './web';

let client: LabClient | null = null;

export function lab(): LabClient {
  client ??= window.sailor ? desktopClient(window.sailor) : webClient();
  return client;
}
