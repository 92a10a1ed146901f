// A dropped file (or a sample fetched by URL) as a stream of byte chunks, with progress
// counted on the bytes as stored (compressed bytes for .gz). Gzip is recognised by its
// magic bytes, not the name, and unwrapped by the platform's DecompressionStream.
import { formatBytes } from '../ingest/lines.ts';
import { isGzip } from '../ingest/transcript.ts';

export interface ByteSource {
  stream: ReadableStream<Uint8Array>;
  bytesTotal: number | null;
}

export interface ReadCallbacks {
  onChunk: (bytes: Uint8Array) => void;
  onProgress: (bytesRead: number, bytesTotal: number | null) => void;
  /** lets the Worker answer queries between chunks on a long read */
  yieldEvery?: number;
  /** most bytes a gzip file is unwrapped to (a few MB of gzip can hold terabytes) */
  maxDecompressedBytes?: number;
  /** after each chunk: a promise holds the next read back (the parsing Workers' pace, pooledLines.ts); may throw to stop */
  pace?: () => Promise<void> | undefined;
}

/** Reading stopped at the cap on decompressed bytes; what came before was delivered. */
export class DecompressedSizeLimit extends Error {
  constructor(readonly limit: number) {
    super(
      `the file decompresses to more than ${formatBytes(limit)}, the most the dashboard unpacks; the first ${formatBytes(limit)} were analysed` +
        ' (to read it all, use `context-health check`)',
    );
  }
}

export async function openFile(file: Blob): Promise<ByteSource> {
  // file.stream() measured faster end to end here than 4 MB slice().arrayBuffer() reads with prefetch
  return { stream: file.stream(), bytesTotal: file.size };
}

export async function openUrl(url: string, signal: AbortSignal): Promise<ByteSource> {
  const res = await fetch(url, { signal });
  if (!res.ok || res.body === null) throw new Error(`could not fetch ${url}: HTTP ${res.status}`);
  const len = Number(res.headers.get('content-length'));
  // a server that gzips on the fly reports the compressed length; progress is then approximate
  return { stream: res.body, bytesTotal: Number.isFinite(len) && len > 0 ? len : null };
}

/** Reads `source` to the end (or until `signal` aborts), unwrapping gzip. Returns whether it was gzip. */
export async function readBytes(source: ByteSource, signal: AbortSignal, cb: ReadCallbacks): Promise<{ gzip: boolean; aborted: boolean }> {
  let bytesRead = 0;
  const raw = source.stream.getReader();
  const first = await raw.read();
  if (first.done) return { gzip: false, aborted: signal.aborted };
  bytesRead += first.value.byteLength;
  const gzip = isGzip(first.value);
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  if (gzip) {
    // put the first chunk back in front of the rest, counting the compressed bytes, then decompress
    let sentFirst = false;
    const rest = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sentFirst) {
          sentFirst = true;
          controller.enqueue(first.value);
          return;
        }
        const r = await raw.read();
        if (r.done) controller.close();
        else {
          bytesRead += r.value.byteLength;
          controller.enqueue(r.value);
        }
      },
      cancel(reason) {
        return raw.cancel(reason);
      },
    });
    reader = rest.pipeThrough(new DecompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>).getReader();
  } else {
    cb.onChunk(first.value);
    cb.onProgress(bytesRead, source.bytesTotal);
    reader = raw;
  }
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  const every = cb.yieldEvery ?? 50;
  const maxInflated = gzip ? (cb.maxDecompressedBytes ?? Infinity) : Infinity;
  let inflated = 0;
  let lastYield = performance.now();
  try {
    for (;;) {
      if (signal.aborted) return { gzip, aborted: true };
      const r = await reader.read();
      if (r.done) break;
      if (!gzip) bytesRead += r.value.byteLength;
      inflated += r.value.byteLength;
      if (inflated > maxInflated) {
        cb.onChunk(r.value.subarray(0, r.value.byteLength - (inflated - maxInflated)));
        cb.onProgress(bytesRead, source.bytesTotal);
        await reader.cancel().catch(() => undefined);
        throw new DecompressedSizeLimit(maxInflated);
      }
      cb.onChunk(r.value);
      cb.onProgress(bytesRead, source.bytesTotal);
      const wait = cb.pace?.();
      if (wait !== undefined) await wait;
      const now = performance.now();
      if (now - lastYield > every) {
        await macrotask();
        lastYield = performance.now();
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return { gzip, aborted: signal.aborted };
}

/** One trip through the event loop, so queued messages (cancel, queries) are handled. */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}
