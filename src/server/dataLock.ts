// One relay per data directory: two would hand out the same seqs. A lock left by a
// killed relay (its process is gone) is taken over.
import fs from 'node:fs';
import path from 'node:path';

export class StartupError extends Error {}

const lockedHere = new Set<string>();

/** Takes the data directory's lock; returns the function that releases it. */
export function lockDataDir(dir: string): () => void {
  const file = lockFile(dir);
  if (lockedHere.has(file)) throw new StartupError(`another relay in this process is using the data directory ${dir}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      lockedHere.add(file);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        lockedHere.delete(file);
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      // our own pid in the file: a relay killed in a container restarted with the same pid
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new StartupError(`another relay (pid ${pid}) is using the data directory ${dir}; stop it or choose another --data`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new StartupError(`could not lock the data directory ${dir}`);
}

export function lockFile(dir: string): string {
  return path.resolve(dir, 'relay.lock');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
