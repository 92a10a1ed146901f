#!/usr/bin/env node
// The `context-health` command. Installed from the package it runs the compiled JavaScript
// that `npm pack` built (build/cli/main.mjs, scripts/build-package.ts): no TypeScript is
// compiled at start. In a clone the sources are here and are what runs, through tsx (a
// devDependency), with tsconfig.render.json, so the dashboard's .tsx chart components that
// `report` draws get the automatic JSX runtime; a build left behind by an `npm pack` in the
// clone is not used, so an edit to src/ is never shadowed by stale compiled code.
// `hook` and `statusline` load only their own modules (docs/hooks.md "What it costs"): they
// start on every compaction and every status-line refresh.
import fs from 'node:fs';

const own = process.argv[2] === 'hook' || process.argv[2] === 'statusline';
let main;
if (fs.existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  const { fileURLToPath } = await import('node:url');
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.render.json', import.meta.url)) });
  if (own) ({ hookMain: main } = await import('../src/cli/hook/entry.ts'));
  else ({ main } = await import('../src/cli/main.ts'));
} else if (own) {
  ({ hookMain: main } = await import('../build/cli/hook.mjs'));
} else {
  ({ main } = await import('../build/cli/main.mjs'));
}
process.exitCode = await main(process.argv.slice(2));
