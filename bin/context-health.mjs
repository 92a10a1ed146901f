#!/usr/bin/env node
// Runs the TypeScript CLI with plain `node`: tsx (a dependency) compiles on load, with
// tsconfig.render.json, so the dashboard's .tsx chart components that `report` draws get
// the automatic JSX runtime wherever the command is run from.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.render.json', import.meta.url)) });
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
