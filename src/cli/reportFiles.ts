// Writing `report`'s files into --out. The folder is the user's; what is written inside it
// never goes through a symbolic link found there (a planted `report.md -> ~/.bashrc` would
// otherwise be overwritten, a FIFO would block the write for good: both are refused, and each
// file is written under a fresh name and renamed into place), and a folder that cannot be written is one sentence, exit 2.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicAsync, type Chunks } from '../node/atomicWrite.ts';

export class ReportWriteError extends Error {}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  ENAMETOOLONG: 'the path is too long',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'a folder is in the way',
  ELOOP: 'it is a symbolic link, and the report is not written through links',
  EEXIST: 'a file is in the way',
  ENOTREG: 'it is not a regular file (a FIFO, a device or a socket), and the report is written only as regular files',
};

function why(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return (code !== undefined ? REASONS[code] : undefined) ?? (e as Error).message;
}

/** Makes `dir` and each folder from `root` down to it, refusing a symbolic link among those below `root`. */
async function folder(root: string, dir: string): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true });
  for (let d = dir; d !== root && d.startsWith(root + path.sep); d = path.dirname(d)) {
    if ((await fs.promises.lstat(d)).isSymbolicLink()) throw Object.assign(new Error('symbolic link'), { code: 'ELOOP' });
  }
}

/** Writes every file under `out`; throws a ReportWriteError naming the file and the reason. */
export async function writeReportFiles(out: string, files: readonly { name: string; bytes: Chunks }[]): Promise<void> {
  const root = path.resolve(out);
  try {
    await fs.promises.mkdir(root, { recursive: true });
    if (!(await fs.promises.stat(root)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (e) {
    throw new ReportWriteError(
      `cannot write the report into --out ${out}: ${(e as NodeJS.ErrnoException).code === 'EEXIST' ? 'it is a file, not a folder' : why(e)}`,
    );
  }
  for (const f of files) {
    const target = path.join(root, f.name);
    try {
      await folder(root, path.dirname(target));
      await refuseNonRegular(target);
      // a fresh name opened O_EXCL|O_NOFOLLOW, renamed into place: never opened through a
      // link, a FIFO or a device found at the name (a FIFO would block the open for good);
      // report.md and report.html come in pieces and go to the file piece by piece
      await writeFileAtomicAsync(target, f.bytes);
    } catch (e) {
      throw new ReportWriteError(`cannot write ${path.join(out, f.name)}: ${why(e)}`);
    }
  }
}

/** A link, FIFO, device or socket at a report file's name is the user's or planted: refused, not replaced. */
async function refuseNonRegular(target: string): Promise<void> {
  let st: fs.Stats;
  try {
    st = await fs.promises.lstat(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (st.isSymbolicLink()) throw Object.assign(new Error('symbolic link'), { code: 'ELOOP' });
  if (st.isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' });
  if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
}
