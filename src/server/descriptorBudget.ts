// Connections may not take every file descriptor: the session logs, the lock check and
// the static files need some too. Past --max-connections the oldest connection that sent no
// request is closed to let the new one in (a new one is refused only when every connection
// open is busy), so a flood of idle connections neither takes the descriptors nor keeps
// health checks and harnesses out, and the connections already open keep their data flowing.
import fs from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The soft RLIMIT_NOFILE of this process, when the system says (Linux: /proc/self/limits). */
export function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** A quarter of the descriptors (at least 64) is kept for files; without a known limit, 10,000 connections. */
export function defaultMaxConnections(limit = openFileLimit()): number {
  if (limit === null) return 10_000;
  return Math.max(16, limit - Math.max(64, Math.floor(limit / 4)));
}

/**
 * Applies the cap and keeps accept errors (EMFILE past the cap) from ending the process.
 *
 * At the cap the connection shed is the oldest that has not sent a whole request yet (an idle
 * or slow one: a flood's), then the oldest kept-alive one between requests; only when every
 * connection open is in a request or a WebSocket is the new one closed. Refusing the new one
 * (Node's server.maxConnections) let a flood of idle connections reset every later health
 * check and ingest POST (A17); shedding the oldest idle one lets them in.
 */
export function capConnections(server: Server, cap: ConnectionCap, log: (line: string) => void): void {
  const maxConnections = cap.max;
  let lastSaid = 0;
  // one line per 10 s at most: a flood must not flood the log too
  const sayOnce = (line: string): void => {
    const now = Date.now();
    if (now - lastSaid < 10_000) return;
    lastSaid = now;
    log(line);
  };
  server.on('connection', (socket: Socket) => {
    const shed = cap.opened(socket);
    if (shed === null) return;
    if (shed === socket) sayOnce(`refusing new connections: ${maxConnections} are open (--max-connections), every one in a request or a WebSocket`);
    else sayOnce(`${maxConnections} connections are open (--max-connections): closing the oldest that sent no request to let new ones in`);
    shed.destroy();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    cap.requestBegan(req.socket);
    res.once('close', () => cap.requestEnded(req.socket));
  });
  server.prependListener('upgrade', (req: IncomingMessage) => cap.upgraded(req.socket));
  server.on('error', (e: NodeJS.ErrnoException) => {
    if (e.syscall === 'accept') sayOnce(`could not accept a connection (${e.code ?? e.message}); the ones open are served`);
    // failing to listen is the start-up's to report (relay.ts), as a StartupError
    else if (e.syscall !== 'listen') log(`server error: ${e.message}`);
  });
}

/**
 * The listen backlog: connections the kernel completes before the relay accepts them. Node's
 * 511 overflowed under a flood, and a health check's SYN dropped there waits a second or more
 * for its retry; the kernel caps it (net.core.somaxconn).
 */
export const LISTEN_BACKLOG = 4096;

/**
 * The connections open, by what may be shed first: those that sent no whole request yet
 * (oldest first), those kept alive between requests (longest idle first). In a request, or a
 * WebSocket: never shed.
 */
export class ConnectionCap {
  private readonly open = new Set<Socket>();
  /** no whole request received yet, oldest first (a Set iterates in insertion order) */
  private readonly waiting = new Set<Socket>();
  /** kept alive with no request in progress, longest idle first */
  private readonly between = new Set<Socket>();
  private readonly inRequest = new Map<Socket, number>();
  /** connections closed to make room (tests, the bench) */
  shed = 0;
  /** new connections closed at once: every one open was busy */
  refused = 0;

  constructor(readonly max: number) {}

  get size(): number {
    return this.open.size;
  }

  /** for /api/health */
  stats(): { open: number; max: number; shed: number; refused: number } {
    return { open: this.open.size, max: this.max, shed: this.shed, refused: this.refused };
  }

  /** A new connection: the one to close, if the cap is reached (the oldest idle, or this one), else null. */
  opened(socket: Socket): Socket | null {
    this.open.add(socket);
    this.waiting.add(socket);
    socket.once('close', () => this.closed(socket));
    if (this.open.size <= this.max) return null;
    const victim = first(this.waiting, socket) ?? first(this.between, socket);
    if (victim === null) {
      this.refused++;
      this.closed(socket);
      return socket;
    }
    this.shed++;
    this.closed(victim);
    return victim;
  }

  requestBegan(socket: Socket): void {
    this.waiting.delete(socket);
    this.between.delete(socket);
    if (this.open.has(socket)) this.inRequest.set(socket, (this.inRequest.get(socket) ?? 0) + 1);
  }

  requestEnded(socket: Socket): void {
    const n = (this.inRequest.get(socket) ?? 0) - 1;
    if (n > 0) {
      this.inRequest.set(socket, n);
      return;
    }
    this.inRequest.delete(socket);
    // kept alive: sheddable again, as the most recently idle
    if (this.open.has(socket) && !socket.destroyed) this.between.add(socket);
  }

  upgraded(socket: Socket): void {
    this.waiting.delete(socket);
    this.between.delete(socket);
  }

  private closed(socket: Socket): void {
    this.open.delete(socket);
    this.waiting.delete(socket);
    this.between.delete(socket);
    this.inRequest.delete(socket);
  }
}

/** The oldest of `set` other than `except`, or null. */
function first(set: Set<Socket>, except: Socket): Socket | null {
  for (const s of set) if (s !== except) return s;
  return null;
}
