// A file of the agents' folders opened for reading (docs/security.md "Local sessions"): the
// name may have become anything since it was listed. It is opened without following a final
// symbolic link and without blocking (a FIFO opened plainly waits for a writer, and holds one
// of libuv's four file threads while it waits: four of them stall every file read of the
// relay), then kept only when the descriptor (fstat, not the name) is a regular file, and,
// when a folder is named, when the file the descriptor holds is inside it. Everything after
// reads through that descriptor: the name is never opened again, so a FIFO or a link renamed
// over it after the check is never read (readThrough).
import fs from 'node:fs';
import path from 'node:path';

/** Why a name is not read: the errno code, or ENOTREG for a FIFO, a device, a socket or a folder. */
export class NotRegularFile extends Error {
  readonly code = 'ENOTREG';
}

/** Test seam: called between the check of the descriptor and its use (a name swapped there must change nothing). */
export const openHooks: { checked?: (file: string) => Promise<void> | void } = {};

/**
 * Opens `file` and checks the descriptor: a regular file, and (with `inside`, a real path)
 * one whose real path is under that folder, also when a folder on the way was swapped for a
 * link after the caller resolved the name.
 */
export async function openRegularFile(file: string, inside?: string): Promise<fs.promises.FileHandle> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  let kept = false;
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new NotRegularFile('not a regular file (a FIFO, a device, a socket or a folder): not read');
    if (inside !== undefined && !(await isInside(handle, st, file, inside)))
      throw new NotRegularFile(`not a file inside ${inside} any more (a folder on its path was replaced): not read`);
    kept = true;
  } finally {
    if (!kept) await handle.close().catch(() => undefined);
  }
  await openHooks.checked?.(file);
  return handle;
}

/**
 * The path that names the open descriptor itself (Linux `/proc/self/fd/N`, macOS and the BSDs
 * `/dev/fd/N`): opening it opens the very file the descriptor holds, whatever its name now
 * names. null where there is none (Windows): there the name is read again, after the check.
 */
export function descriptorPath(handle: fs.promises.FileHandle): string | null {
  const own = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : process.platform === 'win32' ? null : `/dev/fd/${handle.fd}`;
  return own !== null && fs.existsSync(own) ? own : null;
}

/**
 * Opens and checks `file` (openRegularFile), then hands `use` a path to read that names the
 * checked descriptor (descriptorPath; the name only where there is none), the descriptor kept
 * open until `use` is done. For a reader that takes a path (check's): it reads the file that
 * was checked, never what the name became since.
 */
export async function readThrough<T>(file: string, use: (readPath: string) => Promise<T>, inside?: string): Promise<T> {
  const handle = await openRegularFile(file, inside);
  try {
    return await use(descriptorPath(handle) ?? file);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Whether the open file is under `root`: by the descriptor's own path (Linux), else by the name's real path naming the same file. */
async function isInside(handle: fs.promises.FileHandle, st: fs.Stats, file: string, root: string): Promise<boolean> {
  let real: string;
  try {
    if (process.platform === 'linux') real = await fs.promises.readlink(`/proc/self/fd/${handle.fd}`);
    else {
      real = await fs.promises.realpath(file);
      const named = await fs.promises.stat(real);
      if (named.ino !== st.ino || named.dev !== st.dev) return false;
    }
  } catch {
    return false;
  }
  return real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
