// Connections may not take every file descriptor: the session logs, the lock check and
// the static files need some too. Past --max-connections a new TCP connection is closed
// at once (Node's server.maxConnections), so a flood of idle connections is refused at
// the door and the data keeps flowing for the connections already open.
import fs from 'node:fs';
import type { Server } from 'node:http';

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

/** Applies the cap and keeps accept errors (EMFILE past the cap) from ending the process. */
export function capConnections(server: Server, maxConnections: number, log: (line: string) => void): void {
  server.maxConnections = maxConnections;
  let lastSaid = 0;
  // one line per 10 s at most: a flood must not flood the log too
  const sayOnce = (line: string): void => {
    const now = Date.now();
    if (now - lastSaid < 10_000) return;
    lastSaid = now;
    log(line);
  };
  server.on('drop', () => sayOnce(`refusing new connections: ${maxConnections} are open (--max-connections)`));
  server.on('error', (e: NodeJS.ErrnoException) => {
    if (e.syscall === 'accept') sayOnce(`could not accept a connection (${e.code ?? e.message}); the ones open are served`);
    // failing to listen is the start-up's to report (relay.ts), as a StartupError
    else if (e.syscall !== 'listen') log(`server error: ${e.message}`);
  });
}
