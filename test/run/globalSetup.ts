// Vitest's global setup (vite.config.ts, test.globalSetup): runs in the main process before any
// forked worker starts, so every worker and every process a test starts keeps its temporary
// files in the run's own folder, and the teardown removes it (test/run/tmpRoot.ts).
import { useRunTmpRoot } from './tmpRoot.ts';

export default function setup(): () => void {
  return useRunTmpRoot().remove;
}
