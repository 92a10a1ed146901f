// The OTLP decode thread: requests `{id, job}`, replies `{id, decoded}` (decoding.ts).
import { parentPort } from 'node:worker_threads';
import { decodeExport, type DecodeJob } from './decoding.ts';

const port = parentPort;
if (port === null) throw new Error('decodeWorker.ts runs as a worker thread');
port.on('message', (m: { id: number; job: DecodeJob }) => {
  const decoded = decodeExport(m.job);
  // the packed events' chunks are handed over, not copied (packedEvents.ts)
  port.postMessage({ id: m.id, decoded }, decoded.ok ? decoded.prepared.chunks : []);
});
