// Runs the stateless half of the relay's gate (decode, JSON.parse, the engine's
// validation) off the main thread: requests `{id, bytes, limits}`, replies `{id, inspection}`.
import { parentPort } from 'node:worker_threads';
import { inspect, type RelayLimits } from './sessionGate.ts';

export interface InspectRequest {
  id: number;
  bytes: Uint8Array;
  limits: RelayLimits;
}

const port = parentPort;
if (port === null) throw new Error('validatorWorker.ts runs as a worker thread');
port.on('message', (batch: InspectRequest[]) => {
  port.postMessage(batch.map((r) => ({ id: r.id, inspection: inspect(r.bytes, r.limits) })));
});
