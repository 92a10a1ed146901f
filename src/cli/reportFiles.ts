// Writing `report`'s files into --out. The folder is the user's; what is written inside it
// never goes through a symbolic link found there (a planted `report.md -> ~/.bashrc` would
// otherwise be overwritten), and a folder that cannot be written is one sentence, exit 2.
import fs from 'node:fs';
import path from 'node:path';

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
export async function writeReportFiles(out: string, files: readonly { name: string; bytes: Uint8Array | string }[]): Promise<void> {
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
      // O_NOFOLLOW: a symbolic link at the file's own name fails (ELOOP) instead of being written through
      const handle = await fs.promises.open(target, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o644);
      try {
        await handle.writeFile(f.bytes);
      } finally {
        await handle.close();
      }
    } catch (e) {
      throw new ReportWriteError(`cannot write ${path.join(out, f.name)}: ${why(e)}`);
    }
  }
}
