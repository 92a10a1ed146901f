// A harness's WebSocket to the relay's /api/ingest for the browser benches, counting the
// relay's answers as they come back.
import { WebSocket } from 'ws';

export interface IngestSocket {
  ws: WebSocket;
  /** acknowledgements, and every other answer (input errors) */
  answers: { acked: number; rejected: number };
}

export async function openIngest(relayUrl: string): Promise<IngestSocket> {
  const ws = new WebSocket(`${relayUrl.replace('http', 'ws')}/api/ingest`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const answers = { acked: 0, rejected: 0 };
  ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as { type: string };
    if (m.type === 'ack') answers.acked++;
    else answers.rejected++;
  });
  return { ws, answers };
}
