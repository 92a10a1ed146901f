// Worker-thread entry of check's file pool in a clone: the CLI runs as TypeScript through tsx,
// and a worker does not inherit the main thread's loader, so it registers tsx itself (as
// src/node/lineWorker.mjs does). The package builds batchWorker.ts to build/cli/batchWorker.mjs.
import { register } from 'tsx/esm/api';

register();
await import('./batchWorker.ts');
