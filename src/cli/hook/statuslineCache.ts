// docs/hooks.md "Status line": the counts of a transcript, cached between refreshes in a
// folder of this user's own under the temp dir (mode 0700; a folder that is a symbolic link,
// someone else's or open to others is not used). A cache file is written to a fresh name
// (O_CREAT | O_EXCL, never through a symbolic link) and renamed into place, so a reader
// never sees half of one and nobody can point the write elsewhere.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Counts {
  compactions: number;
  /** lost prompts, files and todos of the last compaction */
  lost: number;
  /** the last compaction had no call after it yet (its audit changes at that call) */
  pending: boolean;
}

export interface FileKey {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** the most new bytes scanned for a boundary; a bigger jump is counted again in full */
const MAX_GROWN_BYTES = 16 * 1024 * 1024;

export function cacheDir(): string {
  return path.join(os.tmpdir(), `context-health-statusline-${process.getuid?.() ?? 'user'}`);
}

/** The cache folder, made if needed, or null when it is not safely ours. */
function ownDir(): string | null {
  const dir = cacheDir();
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return null;
  }
  try {
    const st = fs.lstatSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return null;
    return dir;
  } catch {
    return null;
  }
}

export function keyOf(transcript: string): FileKey | null {
  try {
    const st = fs.lstatSync(transcript);
    return st.isFile() ? { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : null;
  } catch {
    return null;
  }
}

const cacheFile = (dir: string, transcript: string): string => path.join(dir, crypto.createHash('sha256').update(transcript).digest('hex') + '.json');

interface Entry {
  transcript: string;
  key: FileKey;
  counts: Counts;
}

/** The cached counts: fresh (the file is as it was), or stale but the same file grown; null for none. */
export function readCache(transcript: string, now: FileKey | null = keyOf(transcript)): { fresh: boolean; key: FileKey; counts: Counts } | null {
  const dir = ownDir();
  if (dir === null || now === null) return null;
  let entry: Entry;
  try {
    const fd = fs.openSync(cacheFile(dir, transcript), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      entry = JSON.parse(fs.readFileSync(fd, 'utf8')) as Entry;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
  const k = entry.key;
  if (entry.transcript !== transcript || typeof k !== 'object' || k === null || k.dev !== now.dev || k.ino !== now.ino || now.size < k.size) return null;
  return { fresh: k.size === now.size && k.mtimeMs === now.mtimeMs, key: k, counts: entry.counts };
}

/** The bytes the transcript gained since `key` (as text), or null when they cannot be read or are too many. */
export function grownBytes(transcript: string, key: FileKey): string | null {
  try {
    const fd = fs.openSync(transcript, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    try {
      const st = fs.fstatSync(fd);
      const n = st.size - key.size;
      if (!st.isFile() || n < 0 || n > MAX_GROWN_BYTES) return null;
      const buf = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const r = fs.readSync(fd, buf, got, n - got, key.size + got);
        if (r === 0) break;
        got += r;
      }
      return buf.subarray(0, got).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** Stores the counts for the transcript as `key` found it (taken before counting: a later change is seen as growth). */
export function writeCache(transcript: string, key: FileKey, counts: Counts): void {
  const dir = ownDir();
  if (dir === null) return;
  const final = cacheFile(dir, transcript);
  const temp = `${final}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(temp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, JSON.stringify({ transcript, key, counts } satisfies Entry));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, final);
  } catch {
    try {
      fs.unlinkSync(temp);
    } catch {
      // never made
    }
  }
}
