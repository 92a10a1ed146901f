// `npm pack`'s prepack: compiles what the package runs into plain JavaScript, so that an
// installed `context-health` starts without compiling TypeScript and `report` builds nothing
// at run time (issue 22). Run from the clone (devDependencies installed):
//   node --import tsx scripts/build-package.ts
//
//   dist/                the dashboard (vite build), served by `serve` (src/server/static.ts)
//   build/cli/main.mjs   the CLI and the relay, and the chunks it loads per command
//   build/cli/validatorWorker.mjs, analysisWorker.mjs   the relay's worker threads
//   build/cli/hook.mjs   `hook` and `statusline` alone (docs/hooks.md: they start on every compaction and refresh)
//   build/cli/hookAudit.mjs                              the hook's audit, a process the hook kills at its time budget
//   build/cli/lineWorker.mjs                             check's parsing threads (src/node/lineWorkerCode.ts)
//   build/cli/batchWorker.mjs                            check's file pool (src/cli/batchCheck.ts)
//   build/cli/analyse.mjs, draw.cjs                      the report renderer (src/cli/rendererBundle.ts)
//   build/cli/schemaRefusal.cjs                          zod and the wire schemas, loaded on the first line refused (src/node/schemaRefusalLazy.ts)
//   build/THIRD-PARTY-LICENSES.txt                       the licences of the code bundled in
//
// build/cli is two folders deep on purpose: the modules find the package's other files as
// `../../dist`, `../../assets/fonts`, `../../docs` from src/cli and src/server, and do the
// same from there. The worker threads are started as `new URL('./<name>.mjs', import.meta.url)`,
// so they are entries of their own, and every chunk lands in build/cli beside them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { ANALYSE_BUILD, DRAW_BUILD } from '../src/cli/rendererBuild.ts';
import { LINE_WORKER_BUILD } from '../src/node/lineWorkerCode.ts';
import { bundledLicences } from './licences.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'build');
const CLI = path.join(OUT, 'cli');

/**
 * What stays outside the bundles and is installed as a dependency: native addons (compiled
 * per platform, loaded with require), and what only the clone's fallbacks load (esbuild to
 * build the renderer in a clone, tsx for its TypeScript): the compiled code never reaches those.
 */
const EXTERNAL = ['@resvg/resvg-js', 'bufferutil', 'utf-8-validate', 'esbuild', 'tsx', 'tsx/*'];

/**
 * protobufjs looks its optional modules up by name at run time (`inquire`, an eval'd
 * require), which a bundle cannot see: `long` would be missing from the package and 64-bit
 * OTLP timestamps would lose digits. Here the two names it asks for are plain requires,
 * which esbuild bundles.
 */
const inquireStatic: Plugin = {
  name: 'protobufjs-inquire',
  setup(b) {
    b.onLoad({ filter: /[\\/]@protobufjs[\\/]inquire[\\/]index\.js$/ }, () => ({
      contents:
        "module.exports = function inquire(name) { if (name === 'long') return require('long'); if (name === 'buffer') return require('node:buffer'); return null; };",
      loader: 'js',
    }));
  },
};

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

/**
 * The CLI's chunks hold no zod: validate.ts's import of the schema's verdict (schemaRefusal.ts)
 * becomes the module that loads build/cli/schemaRefusal.cjs on the first refusal
 * (src/node/schemaRefusalLazy.ts; docs/engine.md "zod on the first refusal").
 */
const SCHEMA_REFUSAL = path.join(ROOT, 'src/core/schemaRefusal.ts');
const schemaOnRefusal: Plugin = {
  name: 'schema-on-refusal',
  setup(b) {
    b.onResolve({ filter: /[\\/]schemaRefusal\.ts$/ }, (args) =>
      path.resolve(args.resolveDir, args.path) === SCHEMA_REFUSAL ? { path: path.join(ROOT, 'src/node/schemaRefusalLazy.ts') } : undefined,
    );
  },
};

export async function buildPackage(options: { dashboard: boolean }): Promise<void> {
  fs.rmSync(OUT, { recursive: true, force: true });
  if (options.dashboard) run(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
  const common = { absWorkingDir: ROOT, outdir: CLI, metafile: true, logLevel: 'warning' } as const;
  const metafiles = (
    await Promise.all([
      build({
        ...ANALYSE_BUILD,
        ...common,
        entryPoints: {
          main: 'src/cli/main.ts',
          hook: 'src/cli/hook/entry.ts',
          // the hook's audit, in a process of its own that the hook kills at its time budget (src/cli/hook/auditProcess.ts)
          hookAudit: 'src/cli/hook/hookAudit.ts',
          validatorWorker: 'src/server/validatorWorker.ts',
          analysisWorker: 'src/server/analysis/analysisWorker.ts',
        },
        // each command's modules load only when it runs: `check` parses only its own
        splitting: true,
        chunkNames: 'chunk-[hash]',
        external: EXTERNAL,
        plugins: [inquireStatic, schemaOnRefusal],
      }),
      // the renderer exactly as a clone builds it (src/cli/rendererBundle.ts), so that the reports are the same bytes
      build({ ...ANALYSE_BUILD, ...common, entryPoints: { analyse: 'src/render/report.ts' } }),
      build({ ...DRAW_BUILD, ...common, entryPoints: { draw: 'src/render/drawWorker.ts' } }),
      // on its own, not a chunk of the CLI's: the thread's code is its few modules, no zod (lineWorkerCode.ts)
      build({ ...LINE_WORKER_BUILD, ...common, entryPoints: { lineWorker: 'src/node/lineWorker.ts' } }),
      // check's file pool over several files and folders (src/cli/batchCheck.ts), a bundle of its
      // own and not an entry of the CLI's: as the CLI's chunks, each thread's module loader took
      // 40 modules, some of them other commands' code (docs/engine.md "Many files")
      build({
        ...ANALYSE_BUILD,
        ...common,
        entryPoints: { batchWorker: 'src/cli/batchWorker.ts' },
        external: EXTERNAL,
        plugins: [schemaOnRefusal],
      }),
      // CommonJS, so that the chunks can load it in the turn that needs it (require, not import())
      build({
        ...common,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        outExtension: { '.js': '.cjs' },
        entryPoints: { schemaRefusal: SCHEMA_REFUSAL },
      }),
    ])
  ).map((b) => b.metafile);
  const inputs: Metafile['inputs'] = Object.assign({}, ...metafiles.map((m) => m.inputs));
  fs.writeFileSync(path.join(OUT, 'THIRD-PARTY-LICENSES.txt'), bundledLicences(ROOT, Object.keys(inputs)));
  // what a reader (or the package test) checks first: which modules stayed outside the bundles
  const imported = new Set<string>();
  for (const out of metafiles.flatMap((m) => Object.values(m.outputs))) {
    for (const i of out.imports) if (i.external && !isBuiltin(i.path)) imported.add(i.path);
  }
  fs.writeFileSync(path.join(OUT, 'external-imports.json'), JSON.stringify([...imported].sort(), null, 2) + '\n');
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === import.meta.filename) {
  await buildPackage({ dashboard: !process.argv.includes('--no-dashboard') });
}
