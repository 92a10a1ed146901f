// What the proxy keeps of one call while it passes (docs/proxy.md "What the proxy keeps"): the
// request body's bytes, up to the capture limit, decoded from their Content-Encoding as a copy
// once the call is over (the upstream got the bytes as they came), and the response's usage,
// read as it streams by (a decoding copy for a compressed answer). Nothing is written to disk
// and no header is kept.
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';
import type { ProxyApi } from '../ingest/adapters/proxy/requests.ts';
import { formatBytes } from '../ingest/lines.ts';
import { UsageReader, type ResponseFacts } from '../ingest/adapters/proxy/usage.ts';

export class RequestCapture {
  private chunks: Buffer[] = [];
  private bytes = 0;
  overLimit = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    if (this.overLimit) return;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.overLimit = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(chunk);
  }

  get size(): number {
    return this.bytes;
  }

  /** The body as text, decoded from its Content-Encoding; a sentence when it cannot be. */
  text(encoding: string | undefined): string | { error: string } {
    const raw = Buffer.concat(this.chunks);
    this.chunks = [];
    const codings = (encoding ?? '')
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== '' && c !== 'identity');
    let body: Buffer = raw;
    try {
      // codings are listed in the order they were applied: undone last first
      for (const c of codings.reverse()) body = decodeSync(c, body, this.maxBytes);
    } catch (e) {
      // a body that inflates past the limit (a gzip bomb) is decoded no further than it
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return { error: `its ${codings.join(', ')} body decodes to more than ${formatBytes(this.maxBytes)} (--max-capture-bytes)` };
      return { error: (e as Error).message };
    }
    return body.toString('utf8');
  }
}

function decodeSync(coding: string, body: Buffer, maxBytes: number): Buffer {
  const options = { maxOutputLength: maxBytes };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body, options);
    case 'deflate':
      return zlib.inflateSync(body, options);
    case 'br':
      return zlib.brotliDecompressSync(body, options);
    case 'zstd': {
      const z = zlib as unknown as { zstdDecompressSync?: (b: Buffer, o: object) => Buffer };
      if (z.zstdDecompressSync === undefined) throw new Error(`a zstd body cannot be decoded on Node ${process.versions.node} (Node 22.15 or later can)`);
      return z.zstdDecompressSync(body, options);
    }
    default:
      throw new Error(`the Content-Encoding ${JSON.stringify(coding)} is not one the proxy decodes`);
  }
}

/** The response's usage, read from its bytes as they pass, decoded when compressed. */
export class ResponseCapture {
  private readonly reader: UsageReader;
  private readonly decoder = new StringDecoder('utf8');
  private readonly inflate: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null;
  private failed: string | null = null;
  private ended: Promise<void>;

  constructor(api: ProxyApi, contentType: string | undefined, encoding: string | undefined, maxBytes: number) {
    const streaming = (contentType ?? '').toLowerCase().includes('text/event-stream');
    this.reader = new UsageReader(api, streaming, maxBytes);
    const coding = (encoding ?? '').trim().toLowerCase();
    this.inflate =
      coding === 'gzip' || coding === 'x-gzip'
        ? zlib.createGunzip()
        : coding === 'deflate'
          ? zlib.createInflate()
          : coding === 'br'
            ? zlib.createBrotliDecompress()
            : null;
    if (coding !== '' && coding !== 'identity' && this.inflate === null)
      this.failed = `the answer's Content-Encoding ${JSON.stringify(coding)} is not one the proxy decodes`;
    if (this.inflate === null) {
      this.ended = Promise.resolve();
      return;
    }
    const inflate = this.inflate;
    inflate.on('data', (c: Buffer) => this.reader.push(this.decoder.write(c)));
    this.ended = new Promise((resolve) => {
      inflate.once('end', resolve);
      inflate.once('error', (e) => {
        this.failed = `the answer could not be decompressed: ${e.message}`;
        resolve();
      });
    });
  }

  push(chunk: Buffer): void {
    if (this.failed !== null) return;
    if (this.inflate !== null) this.inflate.write(chunk);
    else this.reader.push(this.decoder.write(chunk));
  }

  get overLimit(): boolean {
    return this.reader.overLimit;
  }

  get error(): string | null {
    return this.failed;
  }

  async end(): Promise<ResponseFacts> {
    if (this.inflate !== null && this.failed === null) {
      this.inflate.end();
      await this.ended;
    }
    this.reader.push(this.decoder.end());
    return this.reader.end();
  }
}
