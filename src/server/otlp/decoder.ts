// The OTLP receiver's decoding, off the event loop: one worker thread, started on the
// first export and kept (unref'd), decodes each body in turn (decoding.ts). While it
// decodes the largest accepted export, /api/health and every other request are answered.
import { Worker } from 'node:worker_threads';
import type { DecodeJob, Decoded } from './decoding.ts';

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
    const worker = new Worker(new URL('./decodeWorker.mjs', import.meta.url));
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
