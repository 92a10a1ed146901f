// The OTLP receiver's decoding, off the event loop: one worker thread, started on the
// first export and kept (unref'd), decodes each body in turn (decoding.ts). While it
// decodes the largest accepted export, /api/health and every other request are answered.
import { Worker } from 'node:worker_threads';
import type { DecodeJob, Decoded } from './decoding.ts';

/** the decode thread's young generation (its three semi-spaces), MiB */
const YOUNG_GENERATION_MB = 6;

export class OtlpDecoder {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (d: Decoded) => void; reject: (e: Error) => void }>();

  decode(job: DecodeJob): Promise<Decoded> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // the body is handed over, not copied
      worker.postMessage({ id, job }, job.body.byteOffset === 0 && job.body.byteLength === job.body.buffer.byteLength ? [job.body.buffer as ArrayBuffer] : []);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w !== null) await w.terminate();
  }

  private spawn(): Worker {
    // A small young generation: V8 grows it to 32 MiB under a decode's rate of short-lived
    // objects (one span's at a time), twice a 16 MiB body's worth of memory for nothing
    // (docs/security.md "Bounded amplification"); collected more often, it stays small.
    const worker = new Worker(new URL('./decodeWorker.mjs', import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    worker.unref();
    worker.on('message', (m: { id: number; decoded: Decoded }) => {
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      this.pending.delete(m.id);
      p.resolve(m.decoded);
    });
    const fail = (e: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the OTLP decode thread exited (${code})`)));
    return worker;
  }
}
