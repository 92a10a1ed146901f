// A peer that vanished without closing (a laptop asleep, a dropped network) leaves a
// half-open socket: ping every WebSocket each interval and drop one that did not answer
// the previous ping, so a relay left running for days holds no dead connections.
import type { WebSocket } from 'ws';

export interface Heartbeat {
  watch(ws: WebSocket): void;
  stop(): void;
}

export function startHeartbeat(sockets: () => WebSocket[], intervalMs: number): Heartbeat {
  const answered = new WeakSet<WebSocket>();
  const timer = setInterval(() => {
    for (const ws of sockets()) {
      if (!answered.has(ws)) {
        ws.terminate();
        continue;
      }
      answered.delete(ws);
      ws.ping();
    }
  }, intervalMs);
  timer.unref();
  return {
    watch(ws) {
      answered.add(ws);
      ws.on('pong', () => answered.add(ws));
    },
    stop: () => clearInterval(timer),
  };
}
