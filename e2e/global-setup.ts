// One relay for the whole run, on an ephemeral port, serving the built dist/.
import { startRelay } from './helpers/relay.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const relay = await startRelay();
  process.env.CH_BASE_URL = relay.url;
  process.env.CH_RELAY_DATA = relay.dataDir;
  return async () => {
    await relay.stop();
  };
}
