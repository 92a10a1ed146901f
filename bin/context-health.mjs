#!/usr/bin/env node
// Runs the TypeScript CLI with plain `node`: tsx (a dependency) compiles on load.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
