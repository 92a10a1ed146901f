// Time limits on connections (docs/security.md): a connection that never sends a request
// is closed after --idle-timeout; a request (headers and body) must arrive whole within
// --body-timeout (Node answers 408), and so must each WebSocket message (closed 1008).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { ConnectionLimits } from './connectionLimits.ts';
import { CLOSE_TOO_SLOW, closeOnPurpose } from './ingestConnection.ts';
import type { UnfinishedBudget, UnfinishedHolder } from './unfinishedBudget.ts';

/** Options for http.createServer: Node checks request timeouts on this interval, so short timeouts need a short one. */
export function serverTimeoutOptions(limits: ConnectionLimits): { connectionsCheckingInterval: number } {
  return { connectionsCheckingInterval: Math.max(50, Math.min(30_000, limits.bodyTimeoutMs / 4)) };
}

export interface ConnectionGuards {
  /** a WebSocket whose unfinished message `holder` tracks: closed when it is too slow */
  watchMessages(holder: UnfinishedHolder, ws: WebSocket): void;
  stop(): void;
}

export function guardConnections(server: Server, limits: ConnectionLimits, unfinished: UnfinishedBudget): ConnectionGuards {
  // a client that half-closes after sending its request (shutdown(SHUT_WR), `curl -T`…) still
  // gets its answer: by default Node ends the socket and the answer to a stored message is lost
  // (the request and body timeouts above still bound how long such a socket is kept)
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.requestTimeout = limits.bodyTimeoutMs;
  server.headersTimeout = Math.min(60_000, limits.bodyTimeoutMs);
  server.on('connection', (socket: Socket) => {
    socket.setTimeout(limits.idleTimeoutMs);
    socket.once('timeout', () => socket.destroy());
  });
  // a request, or an upgrade to a WebSocket (which the heartbeat watches), lifts the idle timeout
  server.on('request', (req: { socket: Socket }) => req.socket.setTimeout(0));
  server.prependListener('upgrade', (_req: unknown, socket: Socket) => socket.setTimeout(0));

  const sockets = new Map<UnfinishedHolder, WebSocket>();
  const sweep = setInterval(
    () => {
      for (const h of unfinished.stale(Date.now(), limits.bodyTimeoutMs)) {
        const ws = sockets.get(h);
        if (ws !== undefined) closeOnPurpose(ws, CLOSE_TOO_SLOW, `a message took longer than ${limits.bodyTimeoutMs} ms to arrive (--body-timeout)`);
      }
    },
    Math.max(25, Math.min(5000, limits.bodyTimeoutMs / 4)),
  );
  sweep.unref();
  return {
    watchMessages(holder, ws) {
      sockets.set(holder, ws);
      ws.on('close', () => sockets.delete(holder));
    },
    stop: () => clearInterval(sweep),
  };
}
