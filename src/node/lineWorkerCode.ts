// Where a parsing thread's code is (linePool.ts). Installed from the package it is
// build/cli/lineWorker.mjs, compiled beside this module by `npm pack` (scripts/build-package.ts).
// In a clone the sources are TypeScript: through tsx, a thread took ~0.6 s and ~70 MB to
// start (each thread runs its own loader thread and compiles module by module), more than a
// 200 MB file takes to read. So the clone bundles lineWorker.ts with esbuild once into the
// system's temporary folder (~0.2 s, on esbuild's own process) and reuses the bundle while
// none of its inputs has changed size or mtime; a thread then starts in ~0.1 s. Where that
// cannot be done, the thread loads through tsx (lineWorker.mjs beside the sources).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { writeFileAtomic } from './atomicWrite.ts';

const COMPILED = new URL('./lineWorker.mjs', import.meta.url);
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/**
 * How lineWorker.ts is bundled, here and by `npm pack`. The thread validates with the fast
 * path alone (validateFast), so the zod schemas are not its code: wire.ts is declared free of
 * side effects and its unused schemas go, which keeps a thread's start and memory small.
 */
export const LINE_WORKER_BUILD: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  plugins: [
    {
      name: 'wire-schemas-unused',
      setup(b) {
        b.onResolve({ filter: /[\\/]wire\.ts$/ }, (args) => ({ path: path.resolve(args.resolveDir, args.path), sideEffects: false }));
      },
    },
  ],
};

interface Manifest {
  bundle: string;
  /** each input's path, size and mtime when the bundle was built */
  inputs: [string, number, number][];
}

export async function lineWorkerUrl(): Promise<URL> {
  if (!FROM_SOURCES) return COMPILED;
  try {
    return pathToFileURL(await bundle());
  } catch {
    return COMPILED; // the tsx entry
  }
}

async function bundle(): Promise<string> {
  const entry = fileURLToPath(new URL('./lineWorker.ts', import.meta.url));
  const root = path.resolve(path.dirname(entry), '../..');
  // per user and per clone: two clones' bundles differ, and a shared /tmp is not written across users
  const dir = path.join(os.tmpdir(), `context-health-${os.userInfo().uid}`);
  if (!ownFolder(dir)) throw new Error(`${dir} is not a folder of this user's that no one else may write`);
  const manifestFile = path.join(dir, `lineWorker.${hashOf(root)}.json`);
  try {
    const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
    const same = m.inputs.every(([file, size, mtimeMs]) => {
      const st = fs.statSync(path.join(root, file), { throwIfNoEntry: false });
      return st !== undefined && st.size === size && st.mtimeMs === mtimeMs;
    });
    if (same && fs.existsSync(m.bundle)) return m.bundle;
  } catch {
    // no bundle yet, or an unreadable manifest: build one
  }
  const { build } = await import('esbuild');
  const result = await build({
    ...LINE_WORKER_BUILD,
    absWorkingDir: root,
    entryPoints: [entry],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  const bundleFile = path.join(dir, `lineWorker.${hashOf(code)}.mjs`);
  const inputs: Manifest['inputs'] = Object.keys(result.metafile.inputs).map((file) => {
    const st = fs.statSync(path.join(root, file));
    return [file, st.size, st.mtimeMs];
  });
  // written under a fresh temporary name (O_EXCL|O_NOFOLLOW) and renamed: a run starting
  // meanwhile never reads half a file, nothing planted is written through; a bundle replaced
  // is left in place (a run may be about to start threads from it)
  writeFileAtomic(bundleFile, code);
  writeFileAtomic(manifestFile, JSON.stringify({ bundle: bundleFile, inputs } satisfies Manifest));
  return bundleFile;
}

/**
 * docs/security.md "Files the CLI writes": the bundle folder sits in the shared temporary
 * folder, and the bundle in it is run as code, so it is used only when it is a folder (not a
 * link) of this user's that no one else may write into. Another user could otherwise make it
 * first and plant a manifest naming a bundle of theirs, or a link at a temporary name.
 */
function ownFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  const uid = process.getuid?.();
  if (st === undefined || !st.isDirectory()) return false;
  if (uid === undefined) return true; // Windows: no owner to compare; its temporary folder is the user's own
  return st.uid === uid && (st.mode & 0o022) === 0;
}

/** A short name for a string (FNV-1a, hex): file names, not security. */
function hashOf(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}
