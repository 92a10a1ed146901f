// The files `check` reads when given several files or folders (docs/contract.md §6.1, "Many
// files"): a file named is always read; a folder is walked recursively and each file in it is
// read when it looks like a transcript (recognisedTranscript), else counted as skipped. A
// link to a folder the walk is inside of (a symlink loop) is not followed, and any other
// folder is entered once by its real path (two folders linking each other end there). Files are listed per argument, in the arguments'
// order, and sorted by path within a folder.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { detectFormat } from '../ingest/adapters/detect.ts';
import { openHandsFolder } from '../node/openhandsFolder.ts';

/** A file to read (or a folder that could not be listed), as the listing found it. */
export interface Listed {
  /** the path as given or found (a name's bytes that are not UTF-8 shown as U+FFFD) */
  file: string;
  /**
   * why it is not read: a folder that could not be listed (past PATH_MAX, no permission, out
   * of descriptors) is a line of its own, as a file that cannot be read is, rather than a part
   * of the folder left out silently
   */
  error?: string;
  /**
   * found in a folder as a regular file (or a link to one): read only while it still is one
   * (batchWorker.ts readListed), where a file named on the command line may be a FIFO or a
   * process substitution `<(…)`, read as a stream
   */
  regular?: true;
  /** the path's bytes, when a name on it is not UTF-8: `file` no longer names it */
  raw?: Buffer;
  /** found in a folder as an OpenHands conversation's folder: read only while it still is one */
  conversation?: true;
}

export interface BatchFiles {
  /** in output order */
  files: Listed[];
  /** files in the folders that are not transcripts (by name or by their first record) */
  skipped: number;
}

/** Names a transcript may have (contract §2 and docs/adapters.md), gzipped or not. */
const TRANSCRIPT_NAME = /\.(jsonl|json|traj)(\.gz)?$/i;

/** How much of a file's head is read to recognise it. */
const HEAD_BYTES = 1 << 20;

const SEP = Buffer.from(path.sep);

export async function batchFiles(args: readonly string[]): Promise<BatchFiles> {
  const files: Listed[] = [];
  let skipped = 0;
  const entered = new Set<string>();
  for (const arg of args) {
    const st = await fs.promises.stat(arg).catch(() => null);
    // a file, what cannot be read (its own line says why), or an OpenHands conversation (read as one, docs/adapters.md)
    if (st === null || !st.isDirectory() || openHandsFolder(arg) !== null) {
      files.push({ file: arg });
      continue;
    }
    const found: Listed[] = [];
    skipped += await walk(arg, null, { entered, found });
    found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    for (const f of found) files.push(f); // no argument spread: a folder may hold 100,000 files
  }
  return { files, skipped };
}

interface Walk {
  /** real paths of the folders entered, their bytes as latin1 (a name need not be UTF-8) */
  entered: Set<string>;
  found: Listed[];
}

/**
 * Adds the transcripts under `dir` to `found`; returns how many other files it skipped.
 * `raw`: the folder's path as bytes when a name on it is not UTF-8 (Node decodes a name read
 * from a folder as UTF-8, an invalid byte becoming U+FFFD, so `dir` no longer names it).
 * `knownReal`: the folder's real path when the caller knows it (a folder that is no link,
 * inside a folder whose real path is known); otherwise it is asked of the OS.
 */
async function walk(dir: string, raw: Buffer | null, w: Walk, parentReal: string | null = null, knownReal: string | null = null): Promise<number> {
  const at = raw ?? dir;
  // realpath(3) looks up every component of the path, each from the root: asked at every level
  // of a chain of n folders it cost n³ (1,500 levels: 24 s of system time), so it is asked only
  // of the arguments and of links
  const real =
    knownReal ??
    (await fs.promises.realpath(at, { encoding: 'buffer' }).then(
      (b) => b.toString('latin1'),
      () => null,
    ));
  // a link to a folder this one is inside of (its real path is a prefix of ours) is a loop:
  // not followed; any other folder is entered once, however many links lead to it
  const loop = real !== null && parentReal !== null && (parentReal === real || parentReal.startsWith(real.endsWith(path.sep) ? real : real + path.sep));
  if (real === null || loop || w.entered.has(real)) return 0;
  w.entered.add(real);
  let skipped = 0;
  let entries: fs.Dirent<Buffer>[];
  try {
    entries = await fs.promises.readdir(at, { withFileTypes: true, encoding: 'buffer' });
  } catch (e) {
    w.found.push({ file: dir, error: `the folder could not be listed (${(e as Error).message})` });
    return 0;
  }
  for (const e of entries) {
    const name = e.name.toString('utf8');
    const p = path.join(dir, name);
    // the bytes, when the name (or a folder above it) is not UTF-8: what the OS is asked by
    const pRaw = raw === null && Buffer.from(name).equals(e.name) ? null : Buffer.concat([raw ?? Buffer.from(dir), SEP, e.name]);
    const pAt = pRaw ?? p;
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      // followed: to a folder (entered once, by its real path) or a file; a dangling or looping link is a file that cannot be read
      const st = await fs.promises.stat(pAt).catch(() => null);
      isDir = st?.isDirectory() ?? false;
      isFile = st === null || st.isFile();
    }
    const childReal = e.isSymbolicLink() ? null : real + (real.endsWith(path.sep) ? '' : path.sep) + e.name.toString('latin1');
    // docs/adapters.md OpenHands: a conversation's folder (its events/ beside base_state.json) is one transcript
    if (isDir && name !== 'events' && pRaw === null && openHandsFolder(p) !== null) w.found.push({ file: p, conversation: true });
    else if (isDir) skipped += await walk(p, pRaw, w, real, childReal);
    else if (isFile && TRANSCRIPT_NAME.test(name) && (await recognisedTranscript(p, pRaw ?? undefined)))
      w.found.push({ file: p, regular: true, ...(pRaw === null ? {} : { raw: pRaw }) });
    else skipped++;
  }
  return skipped;
}

/**
 * Gemini CLI's `logs.json` as its logger writes it (`JSON.stringify(entries, null, 2)`, each entry
 * `sessionId` first, then a numeric `messageId`: detect.ts isGeminiPromptLogEntry): the prompts
 * typed, not a session; every project folder under ~/.gemini/tmp holds one beside its chats/.
 */
const GEMINI_PROMPT_LOG = /^\[\s*\{\s*"sessionId"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"messageId"\s*:\s*-?\d/;

/**
 * Whether a file in a folder is a transcript: a .traj is (SWE-agent's own name); a .jsonl's
 * first record is one of the formats' (detect.ts; the product's own `session` or `snapshot`);
 * a .json is a JSON array (the product's .json form; not Gemini CLI's prompt log), a SWE-agent or mini-swe-agent document. A file that
 * cannot be read is kept, so that its line says why.
 */
export async function recognisedTranscript(file: string, raw?: Buffer): Promise<boolean> {
  if (/\.traj(\.gz)?$/i.test(file)) return true;
  let head: string;
  try {
    // a .jsonl is told by its first record: its first FIRST_LINE_BYTES are enough when that record ends there
    head = await readHead(raw ?? file, !/\.json(\.gz)?$/i.test(file));
  } catch {
    return true;
  }
  const text = head.replace(/^\uFEFF/, '').trimStart();
  // a .json: an array, a SWE-agent document, a Gemini CLI session (its sessionId and projectHash come before its messages),
  // or a mini-swe-agent trajectory (its info.mini_version, or before 1.5 its info.model_stats, comes before its messages)
  if (/\.json(\.gz)?$/i.test(file))
    return (
      (text.startsWith('[') && !GEMINI_PROMPT_LOG.test(text)) ||
      (text.startsWith('{') &&
        (/"(trajectory|history)"\s*:\s*\[/.test(text) ||
          (/"sessionId"\s*:/.test(text) && /"projectHash"\s*:/.test(text)) ||
          /"mini_version"\s*:/.test(text) ||
          /"trajectory_format"\s*:\s*"mini-swe-agent/.test(text) ||
          (/"model_stats"\s*:/.test(text) && /"api_calls"\s*:/.test(text) && /"messages"\s*:\s*\[/.test(text))))
    );
  const end = text.indexOf('\n');
  // a first record longer than the head: not told here; read, its line says what it holds
  if (end === -1 && text.length >= HEAD_BYTES / 2) return true;
  let first: unknown;
  try {
    first = JSON.parse(end === -1 ? text : text.slice(0, end));
  } catch {
    return false;
  }
  if (detectFormat(first) !== 'wire') return true;
  const type = (first as { type?: unknown } | null)?.type;
  return type === 'session' || type === 'snapshot';
}

/**
 * How much of a plain .jsonl's head is read first. Every file of a folder was read for a MiB,
 * and that MiB decoded, to tell it by its first line: over 150 sessions of 0.5-4 MB the walk
 * took ~0.2 s of the main thread before any file was checked, now ~0.05 s.
 */
const FIRST_LINE_BYTES = 64 << 10;

/** Buffers of FIRST_LINE_BYTES, given back after each read: one for a whole walk, not one a file. */
const spareHeads: Buffer[] = [];

/** Whether `text` holds the end of its first record (a newline after something other than white space). */
const endsFirstRecord = (text: string): boolean =>
  text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .includes('\n');

/**
 * The first HEAD_BYTES of a file (gunzipped when its first bytes say gzip), as text; with
 * `firstLine`, only its first FIRST_LINE_BYTES when its first record (leading white space
 * passed over) ends within them, which is all a .jsonl is told by. That record's text is the
 * same either way: the bytes before its newline decode alike, whatever follows is cut.
 */
async function readHead(file: string | Buffer, firstLine: boolean): Promise<string> {
  // without blocking, and only a regular file: a FIFO swapped in since the folder was listed
  // would wait for a writer for ever, and the listing with it (docs/security.md "check over folders")
  const fd = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const st = await fd.stat();
    if (!st.isFile()) throw new Error('not a regular file');
    // no more than the file holds: a MiB zeroed for each of 20,000 empty .jsonl cost 4-6 s
    const size = Math.min(HEAD_BYTES, st.size);
    if (firstLine && size > FIRST_LINE_BYTES) {
      const start = spareHeads.pop() ?? Buffer.allocUnsafeSlow(FIRST_LINE_BYTES);
      try {
        const { bytesRead } = await fd.read(start, 0, FIRST_LINE_BYTES, 0);
        const bytes = start.subarray(0, bytesRead);
        const nl = bytes.indexOf(0x0a);
        if ((bytes[0] !== 0x1f || bytes[1] !== 0x8b) && nl !== -1) {
          // the first line alone when it holds the record; past blank lines, the whole read
          const line = bytes.toString('utf8', 0, nl + 1);
          if (endsFirstRecord(line)) return line;
          const text = bytes.toString('utf8');
          if (endsFirstRecord(text)) return text;
        }
      } finally {
        spareHeads.push(start);
      }
    }
    const buf = Buffer.alloc(size);
    const { bytesRead } = size === 0 ? { bytesRead: 0 } : await fd.read(buf, 0, size, 0);
    const bytes = buf.subarray(0, bytesRead);
    if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.toString('utf8');
    // a gzip's first MiB inflates to its head; the rest of the stream is not needed
    return (await gunzipHead(bytes)).toString('utf8');
  } finally {
    await fd.close();
  }
}

/**
 * The first HEAD_BYTES that `gzip` inflates to, the rest not inflated. (gunzipSync's
 * maxOutputLength throws rather than cuts: any .jsonl.gz whose first MiB inflated to more, a
 * rotated log of a few hundred KB, "could not be read", so it was kept and read whole.)
 */
function gunzipHead(gzip: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // a head cut mid-stream is not an error: it ends where the bytes end
    const z = zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const out: Buffer[] = [];
    let n = 0;
    z.on('data', (c: Buffer) => {
      out.push(c);
      n += c.length;
      if (n >= HEAD_BYTES) {
        z.destroy(); // a gzip bomb's head costs a MiB
        resolve(Buffer.concat(out).subarray(0, HEAD_BYTES));
      }
    });
    z.on('end', () => resolve(Buffer.concat(out)));
    z.on('error', reject);
    z.end(gzip);
  });
}
