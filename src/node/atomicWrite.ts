// Every file the product writes (watch's state file, report files, alert rules, the build
// caches) is written to a fresh name in the target's own folder, opened with O_CREAT|O_EXCL
// |O_NOFOLLOW so nothing planted there (a `<state>.tmp -> ~/.bashrc` link, a FIFO) is ever
// opened or written through, and then renamed into place: a reader never sees half a file,
// and a link at the target's name is replaced, not followed (docs/security.md, "Files the
// CLI writes"). The content goes in pieces, so no output has to be one string.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type Chunks = string | Uint8Array | Iterable<string | Uint8Array>;

const CREATE_EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/** A name in `target`'s folder that nothing else chose: `.report.md.<pid>.<random>.tmp`. */
export function freshTempName(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

function* pieces(data: Chunks): Iterable<string | Uint8Array> {
  if (typeof data === 'string' || data instanceof Uint8Array) yield data;
  else yield* data;
}

/** Writes `data` to `target` through a fresh temporary file renamed into place (synchronous). */
export function writeFileAtomic(target: string, data: Chunks, mode = 0o644): void {
  const tmp = freshTempName(target);
  const fd = fs.openSync(tmp, CREATE_EXCLUSIVE, mode);
  try {
    try {
      for (const piece of pieces(data)) {
        if (typeof piece === 'string') fs.writeSync(fd, piece);
        else writeBytes(fd, piece);
      }
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

function writeBytes(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += fs.writeSync(fd, bytes, at, bytes.length - at);
}

/** The same, asynchronous: `data` may also be an async iterable of pieces. */
export async function writeFileAtomicAsync(target: string, data: Chunks | AsyncIterable<string | Uint8Array>, mode = 0o644): Promise<void> {
  const tmp = freshTempName(target);
  const handle = await fs.promises.open(tmp, CREATE_EXCLUSIVE, mode);
  try {
    try {
      const source = Symbol.asyncIterator in Object(data) ? (data as AsyncIterable<string | Uint8Array>) : pieces(data as Chunks);
      for await (const piece of source) await (typeof piece === 'string' ? handle.write(piece) : handle.write(piece));
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, target);
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
}
