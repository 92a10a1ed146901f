// One relay for the whole run, on an ephemeral port, serving the built dist/. Before it, the
// run's own temporary folder (test/run/tmpRoot.ts): the relay, the workers (started after
// this, they inherit TMPDIR as they inherit CH_BASE_URL), Chromium and whatever a spec starts
// keep their temporary files there, and the teardown removes it after the relay has stopped.
import { useRunTmpRoot } from '../test/run/tmpRoot.ts';
import { startRelay } from './helpers/relay.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const tmp = useRunTmpRoot();
  try {
    const relay = await startRelay();
    process.env.CH_BASE_URL = relay.url;
    process.env.CH_RELAY_DATA = relay.dataDir;
    return async () => {
      try {
        await relay.stop();
      } finally {
        tmp.remove();
      }
    };
  } catch (e) {
    tmp.remove(); // no teardown runs when the setup throws
    throw e;
  }
}
