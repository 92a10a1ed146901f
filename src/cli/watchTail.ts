// How `watch` reads one growing file, the way `tail -F` and the OpenTelemetry Collector's
// filelog receiver do:
// - the file is known by its identity (device and inode) and a fingerprint (its first
//   bytes): another file under the same name (rotation: renamed away, a new one created),
//   a file truncated (smaller than what was read) or rewritten from the start (the first
//   bytes differ) is read again from byte 0, as a new file;
// - at most `maxLineBytes` are read per poll, so a huge file is read in bounded pieces
//   (it once threw "Cannot create a string longer than…" and stalled every other file);
//   a line longer than that is skipped up to its newline, and said so.
import fs from 'node:fs';

export interface FileState {
  /** bytes read and handed to the adapter (always at a line end, or inside a skipped line) */
  offset: number;
  lines: number;
  dev?: number;
  ino?: number;
  /** the file's first bytes read (up to FINGERPRINT_BYTES), hex: a file rewritten in place starts otherwise */
  fingerprint?: string;
  /** inside a line longer than maxLineBytes, skipping to its newline */
  skipping?: boolean;
  /** a file rewritten whole (watchWhole.ts): its modification time when last read; `offset` is its size then, `lines` the messages sent */
  mtimeMs?: number;
}

/** as the filelog receiver's fingerprint_size default */
const FINGERPRINT_BYTES = 1000;

export interface TailReader {
  /** called with each complete line; `restart` before the lines of a file read from byte 0 again */
  line(text: string, number: number): void;
  restart(why: string): void;
  log(line: string): void;
}

/** Reads the complete lines after `state.offset`, up to `limit` bytes into the file; updates `state`. */
export function readTail(file: string, state: FileState, limit: number, maxLineBytes: number, reader: TailReader): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return; // gone (or not yet there)
  }
  try {
    const st = fs.fstatSync(fd);
    const changed = sameFileAs(fd, st, state);
    if (changed !== null) {
      reader.restart(changed);
      Object.assign(state, { offset: 0, lines: 0, skipping: false, fingerprint: undefined });
    }
    state.dev = st.dev;
    state.ino = st.ino;
    const end = Math.min(st.size, limit, state.offset + maxLineBytes);
    if (end <= state.offset) return;
    const bytes = Buffer.alloc(end - state.offset);
    const got = fs.readSync(fd, bytes, 0, bytes.length, state.offset);
    const chunk = bytes.subarray(0, got);
    const known = (state.fingerprint?.length ?? 0) / 2;
    if (known < FINGERPRINT_BYTES && state.offset <= known) {
      state.fingerprint = (state.fingerprint ?? '') + chunk.subarray(known - state.offset, FINGERPRINT_BYTES - state.offset).toString('hex');
    }
    const lastNewline = chunk.lastIndexOf(0x0a);
    if (lastNewline === -1) {
      // no line end within maxLineBytes: a line too long to hold, skipped to its newline
      if (chunk.length >= maxLineBytes) {
        if (state.skipping !== true) reader.log(`${file}:${state.lines + 1}: the line is longer than ${maxLineBytes} bytes; skipped`);
        state.skipping = true;
        state.offset += chunk.length;
      }
      return;
    }
    let start = 0;
    if (state.skipping === true) {
      start = chunk.indexOf(0x0a) + 1;
      state.lines++;
      state.skipping = false;
    }
    if (start <= lastNewline) {
      const text = chunk.subarray(start, lastNewline).toString('utf8');
      for (const line of text.split('\n')) reader.line(line.endsWith('\r') ? line.slice(0, -1) : line, ++state.lines);
    }
    state.offset += lastNewline + 1;
  } finally {
    fs.closeSync(fd);
  }
}

/** null when the open file is the one `state` was reading, else why not. */
function sameFileAs(fd: number, st: fs.Stats, state: FileState): string | null {
  if (state.offset === 0 && state.ino === undefined) return null;
  if (state.ino !== undefined && (st.ino !== state.ino || st.dev !== state.dev)) return 'replaced by another file (rotated)';
  if (st.size < state.offset) return `truncated (${st.size} bytes, ${state.offset} were read)`;
  if (state.fingerprint !== undefined && state.fingerprint !== '') {
    const head = Buffer.alloc(state.fingerprint.length / 2);
    const got = fs.readSync(fd, head, 0, head.length, 0);
    if (head.subarray(0, got).toString('hex') !== state.fingerprint) return 'rewritten from its start';
  }
  return null;
}
