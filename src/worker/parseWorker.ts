// A parsing Worker of the dashboard (parsePool.ts spawns them from the analysis Worker):
// each batch of lines posted comes back as records (parseBatch.ts), its buffers transferred.
import { createSHA256 } from 'hash-wasm';
import { textSha256 } from './textSha256.ts';
import { BatchParser, transferablesOf, WORKER_READY, type ParseBatch, type ParseFailure } from './parseBatch.ts';

const scope = self as unknown as {
  onmessage: ((ev: MessageEvent<ParseBatch>) => void) | null;
  postMessage: (message: unknown, options?: { transfer?: Transferable[] }) => void;
};

const ready = createSHA256().then((hasher) => new BatchParser(textSha256(hasher)));
// the pool gives this Worker batches once it says it can take them (parsePool.ts, hasRoom)
void ready.then(() => scope.postMessage(WORKER_READY));

scope.onmessage = (ev) => {
  const batch = ev.data;
  ready
    .then((parser) => {
      const parsed = parser.parse(batch);
      scope.postMessage(parsed, { transfer: transferablesOf(parsed) });
    })
    // its sha256 did not load, or the answer could not be posted: the pool fails the load
    .catch((e: unknown) => scope.postMessage({ seq: batch.seq, failure: e instanceof Error ? e.message : String(e) } satisfies ParseFailure));
};
