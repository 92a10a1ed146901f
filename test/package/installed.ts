// The package as a user gets it: `npm pack` in the clone (its prepack builds
// scripts/build-package.ts), then `npm install -g --prefix <tmp> <tarball>` with the machine's
// npm. Shared by test/package/pack.test.ts, which packs once per run.
import { run as runCommand } from '../relay/helpers.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Installed {
  /** the folder everything of this run lives in (removed by remove()) */
  dir: string;
  tarball: string;
  /** the paths inside the tarball, as npm pack listed them */
  files: string[];
  prefix: string;
  /** `<prefix>/bin/context-health`, the command npm linked */
  bin: string;
  /** the installed package's folder */
  packageDir: string;
  /** a folder outside the clone to run the command from */
  outside: string;
  remove: () => void;
}

/** one command to completion, its output collected: the relay tests' helper, its timeout raised for installs */
export async function run(cmd: string, args: string[], options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  return runCommand(cmd, args, { timeoutMs: 120_000, ...options });
}

export type Ran = Awaited<ReturnType<typeof runCommand>>;

async function must(cmd: string, args: string[], options: { cwd: string; timeoutMs?: number }): Promise<string> {
  const r = await run(cmd, args, options);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Packs the clone and installs the tarball into a fresh prefix (minutes on a busy machine). */
export async function packAndInstall(): Promise<Installed> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-package-'));
  const packed = JSON.parse(await must('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, timeoutMs: 600_000 })) as {
    filename: string;
    files: { path: string }[];
  }[];
  const tarball = path.join(dir, packed[0]!.filename);
  const prefix = path.join(dir, 'prefix');
  const outside = path.join(dir, 'elsewhere');
  fs.mkdirSync(outside);
  // run from the folder outside the clone, so that nothing of the clone's npm config or node_modules is involved
  await must('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: outside, timeoutMs: 600_000 });
  return {
    dir,
    tarball,
    files: packed[0]!.files.map((f) => f.path),
    prefix,
    bin: path.join(prefix, 'bin', 'context-health'),
    packageDir: path.join(prefix, 'lib', 'node_modules', 'context-health'),
    outside,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

interface LsNode {
  missing?: boolean;
  dependencies?: Record<string, LsNode>;
}

/** every package name in the installed package's production dependency tree (`npm ls --all --omit=dev`) */
export async function productionTree(installed: Installed): Promise<string[]> {
  // npm ls exits 1 for the unmet optional dependencies of other platforms (resvg's): the JSON is still whole
  const r = await run('npm', ['ls', '--json', '--all', '--omit=dev', '--prefix', installed.packageDir], { cwd: installed.outside });
  const tree = JSON.parse(r.stdout) as LsNode;
  const names = new Set<string>();
  const walk = (node: LsNode): void => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      if (child.missing === true) continue; // another platform's optional build
      names.add(name);
      walk(child);
    }
  };
  walk(tree);
  return [...names].sort();
}

/** every package installed under the package's node_modules, read from the disk (what npm ls could miss) */
export function installedPackages(installed: Installed): string[] {
  const names: string[] = [];
  const walk = (modules: string): void => {
    if (!fs.existsSync(modules)) return;
    for (const entry of fs.readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@') ? fs.readdirSync(path.join(modules, entry)).map((e) => path.join(entry, e)) : [entry];
      for (const d of dirs) {
        names.push(d.split(path.sep).join('/'));
        walk(path.join(modules, d, 'node_modules'));
      }
    }
  };
  walk(path.join(installed.packageDir, 'node_modules'));
  return names.sort();
}
