#!/usr/bin/env node
// The `context-health` command. Installed from the package it runs the compiled JavaScript
// that `npm pack` built (build/cli/main.mjs, scripts/build-package.ts): no TypeScript is
// compiled at start. In a clone the sources are here and are what runs, through tsx (a
// devDependency), with tsconfig.render.json, so the dashboard's .tsx chart components that
// `report` draws get the automatic JSX runtime; a build left behind by an `npm pack` in the
// clone is not used, so an edit to src/ is never shadowed by stale compiled code.
import fs from 'node:fs';

let main;
if (fs.existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  const { fileURLToPath } = await import('node:url');
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.render.json', import.meta.url)) });
  ({ main } = await import('../src/cli/main.ts'));
} else {
  ({ main } = await import('../build/cli/main.mjs'));
}
process.exitCode = await main(process.argv.slice(2));
