// The web transport: the same contract over HTTP (POST /api/<method>) and a WebSocket for events.
// The server keeps the access token in an HttpOnly cookie, so this code never handles it.
import type { EventName, EventPayloads, FieldIssue, LabClient, MethodName, MethodParams, MethodResult, WireError } from '@contract';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** A refused call's bad fields, in words (WireError.issues). */
    readonly issues?: FieldIssue[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function webClient(base: string = window.location.origin): LabClient {
  type Listener = (payload: unknown) => void;
  const listeners = new Map<string, Set<Listener>>();
  let socket: WebSocket | null = null;
  let retryMs = 500;

  const connect = (): void => {
    socket = new WebSocket(base.replace(/^http/, 'ws') + '/events');
    socket.onopen = () => (retryMs = 500);
    socket.onmessage = (msg) => {
      const { event, payload } = JSON.parse(String(msg.data)) as { event: string; payload: unknown };
      for (const listener of listeners.get(event) ?? []) listener(payload);
    };
    socket.onclose = () => {
      // The server restarts or the laptop sleeps: reconnect with backoff, capped at 10 s.
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 10_000);
    };
  };
  connect();

  return {
    transport: 'web',
    async call<M extends MethodName>(method: M, params?: MethodParams<M>): Promise<MethodResult<M>> {
      const res = await fetch(`${base}/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params ?? {}),
        credentials: 'same-origin',
      });
      const text = await res.text();
      let body: { ok: boolean; result?: unknown; error?: WireError };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        throw new ApiError(String(res.status), `${method}: ${res.status} ${text.slice(0, 200)}`);
      }
      if (!body.ok) throw new ApiError(body.error?.code ?? String(res.status), body.error?.message ?? `${method} failed`, body.error?.issues);
      return body.result as MethodResult<M>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener as Listener);
      return () => set.delete(listener as Listener);
    },
  };
}
