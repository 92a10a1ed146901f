// The data directory (or its lock) removed under a running relay: logs still open take
// writes that vanish, new ones cannot be created. Checked now and then, so that the
// relay stops acknowledging and says why even before a write to an open log notices
// (the store checks that itself after each append).
import fs from 'node:fs';
import { lockFile } from './dataLock.ts';
import type { SessionLogStore } from './store.ts';

/** Starts the check; returns the function that stops it. */
export function watchDataDir(dataDir: string, store: SessionLogStore, everyMs: number): () => void {
  const lock = lockFile(dataDir);
  const timer = setInterval(() => {
    if (store.lost !== null) return;
    try {
      fs.statSync(store.sessionsDir);
      if (fs.readFileSync(lock, 'utf8') !== String(process.pid)) store.markLost(`the lock ${lock} now names another process`);
    } catch (e) {
      store.markLost(`the data directory ${dataDir} (or its lock) is gone (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
