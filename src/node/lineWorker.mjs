// Worker-thread entry: in a clone the CLI runs as TypeScript through tsx, and a worker does not
// inherit the main thread's loader, so it registers tsx itself (as bin/context-health.mjs does).
// The package builds lineWorker.ts to build/cli/lineWorker.mjs, which is what runs there.
import { register } from 'tsx/esm/api';

register();
await import('./lineWorker.ts');
