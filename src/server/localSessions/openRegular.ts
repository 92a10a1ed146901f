// A file of the agents' folders opened for reading (docs/security.md "Local sessions"): the
// name may have become anything since it was listed. It is opened without following a final
// symbolic link and without blocking (a FIFO opened plainly waits for a writer, and holds one
// of libuv's four file threads while it waits: four of them stall every file read of the
// relay), then kept only when it is a regular file.
import fs from 'node:fs';

/** Why a name is not read: the errno code, or ENOTREG for a FIFO, a device, a socket or a folder. */
export class NotRegularFile extends Error {
  readonly code = 'ENOTREG';
}

export async function openRegularFile(file: string): Promise<fs.promises.FileHandle> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  let regular = false;
  try {
    regular = (await handle.stat()).isFile();
  } finally {
    if (!regular) await handle.close().catch(() => undefined);
  }
  if (!regular) throw new NotRegularFile('not a regular file (a FIFO, a device, a socket or a folder): not read');
  return handle;
}
