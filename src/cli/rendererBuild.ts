// How the report renderer's bundles are built with esbuild: in a clone on first use, into
// node_modules/.cache (rendererBundle.ts), and by `npm pack` into the package
// (scripts/build-package.ts). One set of options for both, so that the installed package
// draws exactly the bytes the clone draws.
import type { BuildOptions } from 'esbuild';

/** this file: a change to the options is a change to the bundles (rendererBundle.ts keeps its sha256) */
export const RENDER_BUILD_FILE = import.meta.filename;

/** CommonJS modules inside an ES module bundle call require: this gives them Node's */
export const ESM_REQUIRE_BANNER = "import { createRequire as __chRequire } from 'node:module'; const require = __chRequire(import.meta.url);";

/** what the analysis side and the drawing side share */
export const RENDER_COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  // a native module: loaded from node_modules as it is
  external: ['@resvg/resvg-js'],
  // less for V8 to parse on each run (the 7.8 MB drawing bundle takes about 0.35 s unminified)
  minify: true,
  logLevel: 'silent',
};

/**
 * The drawing side (src/render/drawWorker.ts). CommonJS, so that the drawing thread can
 * compile it with V8's code cache (vm.Script's cachedData; ES modules have no such door on
 * Node 20): about 0.15 s of compiling the 3.4 MB bundle on every run becomes a few ms after
 * the first (docs/perf-log/notebook.md "Reports").
 */
export const DRAW_BUILD: BuildOptions = {
  ...RENDER_COMMON,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  define: { 'import.meta.url': '__chImportMetaUrl' },
  banner: { js: "var __chImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};

/** The analysis side (src/render/report.ts), an ES module loaded by the CLI's thread. */
export const ANALYSE_BUILD: BuildOptions = {
  ...RENDER_COMMON,
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  banner: { js: ESM_REQUIRE_BANNER },
};
