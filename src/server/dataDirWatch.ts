// The data directory (or its lock) removed under a running relay: logs still open take
// writes that vanish, new ones cannot be created. Checked now and then, so that the
// relay stops acknowledging and says why even before a write to an open log notices
// (the store checks that itself after each append).
//
// Only an answer that proves the directory is gone counts (ENOENT, ENOTDIR, or a lock
// naming another process). A check that cannot look right now (EMFILE under a connection
// flood, EAGAIN, EIO…) proves nothing: marking the store lost on it would stop every
// acknowledgement until a restart, which is what a flood of idle connections once did.
import fs from 'node:fs';
import { lockFile } from './dataLock.ts';
import type { SessionLogStore } from './store.ts';

/** errno codes meaning the path really is not there (anything else: look again next time) */
const GONE = new Set(['ENOENT', 'ENOTDIR']);

export type DataDirCheck = { state: 'ok' } | { state: 'gone'; why: string } | { state: 'unknown'; code: string };

/** One look at the directory and its lock. */
export function checkDataDir(dataDir: string, sessionsDir: string): DataDirCheck {
  const lock = lockFile(dataDir);
  try {
    fs.statSync(sessionsDir);
    const owner = fs.readFileSync(lock, 'utf8');
    if (owner !== String(process.pid)) return { state: 'gone', why: `the lock ${lock} now names another process` };
    return { state: 'ok' };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    if (GONE.has(code)) return { state: 'gone', why: `the data directory ${dataDir} (or its lock) is gone (${code})` };
    return { state: 'unknown', code };
  }
}

/** Starts the check; returns the function that stops it. */
export function watchDataDir(dataDir: string, store: SessionLogStore, everyMs: number, log: (line: string) => void = () => {}): () => void {
  let unsure: string | null = null;
  const timer = setInterval(() => {
    if (store.lost !== null) return;
    const seen = checkDataDir(dataDir, store.sessionsDir);
    if (seen.state === 'gone') store.markLost(seen.why);
    else if (seen.state === 'unknown' && unsure === null) log(`could not check the data directory ${dataDir} (${seen.code}); will look again`);
    unsure = seen.state === 'unknown' ? seen.code : null;
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
