// docs/hooks.md "Never in the way": the hook and the status line read a path the agent's
// event names, which may be anything. Only a regular file is read, opened without following
// a final symbolic link and without blocking (a FIFO opened for reading would wait for a
// writer), and at most `maxBytes` of it: the last ones, from a line's start, so a 1 GB
// transcript costs what its tail costs.
import fs from 'node:fs';

export interface BoundedText {
  text: string;
  /** the file's size when it was read */
  size: number;
  /** true: the file was longer than the bound and only its tail was read */
  truncated: boolean;
}

/** Linux's PATH_MAX: a longer path names no file, and is not echoed whole to stderr either. */
export const MAX_PATH_BYTES = 4096;
const SHOWN_PATH_CHARS = 200;

/** The path as a message shows it: at most SHOWN_PATH_CHARS, so no event makes a huge stderr line. */
export function shownPath(path: string): string {
  return path.length <= SHOWN_PATH_CHARS ? path : `${path.slice(0, SHOWN_PATH_CHARS)}… (${path.length} characters)`;
}

/**
 * Why the path cannot be read, in one sentence, or the text read. `suffix`: only a file whose
 * name ends so is read (the hook's transcripts are .jsonl: a path to ~/.ssh/id_rsa through a
 * linked folder is refused before a byte of it is read).
 */
export function readBoundedTail(path: string, maxBytes: number, suffix?: string): BoundedText | { error: string } {
  const shown = shownPath(path);
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return { error: `${shown} is longer than ${MAX_PATH_BYTES} bytes: not a path to open` };
  if (path.includes('\0')) return { error: `${shown} holds a NUL byte: not a path to open` };
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { error: `${shown} is a symbolic link: not followed` };
    if (code === 'ENOENT') return { error: `${shown} does not exist` };
    // the code, not the message: Node's message repeats the whole path
    return { error: `cannot open ${shown}: ${code ?? (e as Error).message}` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { error: `${shown} is not a regular file (${kindOf(st)})` };
    if (suffix !== undefined && !path.endsWith(suffix)) return { error: `${shown} is not a ${suffix} file: not read` };
    const size = st.size;
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.allocUnsafe(size - start);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    let body = buf.subarray(0, got);
    if (start > 0) {
      // the tail starts mid-line: from the next line on
      const nl = body.indexOf(0x0a);
      body = nl < 0 ? body.subarray(body.length) : body.subarray(nl + 1);
    }
    return { text: body.toString('utf8'), size, truncated: start > 0 };
  } catch (e) {
    return { error: `cannot read ${shown}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * All of stdin, up to `maxBytes`, or why not: more than that, or nothing ended it within
 * `timeoutMs` (an agent that never closes the pipe must not hold the hook).
 */
export function readStdin(maxBytes: number, timeoutMs: number): Promise<string | { error: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (v: string | { error: string }): void => {
      clearTimeout(timer);
      process.stdin.removeAllListeners('data');
      process.stdin.removeAllListeners('end');
      process.stdin.pause();
      process.stdin.unref?.();
      resolve(v);
    };
    const timer = setTimeout(() => done({ error: `no end of the event on stdin within ${timeoutMs} ms` }), timeoutMs);
    process.stdin.on('data', (d: Buffer) => {
      size += d.length;
      if (size > maxBytes) done({ error: `the event on stdin is longer than ${maxBytes} bytes` });
      else chunks.push(d);
    });
    process.stdin.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', (e) => done({ error: `cannot read stdin: ${e.message}` }));
  });
}
