// Worker-thread entry: the relay runs as TypeScript through tsx, and a worker does not
// inherit the main thread's loader, so it registers tsx itself (as validatorWorker.mjs does).
import { register } from 'tsx/esm/api';

register();
await import('./decodeWorker.ts');
