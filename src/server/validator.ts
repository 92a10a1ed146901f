// The costly, stateless half of ingest (decoding, JSON.parse and the engine's validation:
// about half the relay's CPU time per large snapshot) runs on worker threads, so the main
// thread stays free to store, fan out and acknowledge. Small messages are inspected
// inline, where a round trip to a worker would cost more than the work. Results may come
// back in any order; the caller (ingest.ts) applies them in arrival order.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { inspect, type Inspection, type RelayLimits } from './sessionGate.ts';
import type { InspectRequest } from './validatorWorker.ts';

/** below this a message is inspected on the main thread */
const INLINE_BYTES = 16 * 1024;

interface Pending {
  bytes: Uint8Array;
  resolve: (ins: Inspection) => void;
}

class ValidatorThread {
  readonly pending = new Map<number, Pending>();
  private worker: Worker;
  private batch: InspectRequest[] = [];
  private scheduled = false;

  constructor(
    private readonly limits: RelayLimits,
    private readonly log: (line: string) => void,
  ) {
    this.worker = this.spawn();
  }

  submit(id: number, bytes: Uint8Array, resolve: (ins: Inspection) => void): void {
    this.pending.set(id, { bytes, resolve });
    // one postMessage per turn of the event loop, carrying every message that arrived in it;
    // each as its own copy, transferred (a Buffer may be a view into a larger pooled one)
    this.batch.push({ id, bytes: new Uint8Array(bytes), limits: this.limits });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        const batch = this.batch;
        this.batch = [];
        this.worker.postMessage(
          batch,
          batch.map((r) => r.bytes.buffer as ArrayBuffer),
        );
      });
    }
  }

  close(): Promise<number> {
    this.worker.removeAllListeners('exit');
    return this.worker.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./validatorWorker.mjs', import.meta.url));
    worker.unref();
    worker.on('message', (results: { id: number; inspection: Inspection }[]) => {
      for (const r of results) {
        const p = this.pending.get(r.id);
        if (p === undefined) continue;
        this.pending.delete(r.id);
        p.resolve(r.inspection);
      }
    });
    worker.on('error', (e) => this.log(`validator thread failed: ${e.message}`));
    worker.on('exit', () => {
      // whatever it held is inspected here instead; a new thread takes the next ones
      this.log('validator thread exited; starting another');
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.resolve(inspect(p.bytes, this.limits));
      }
      this.worker = this.spawn();
    });
    return worker;
  }
}

export function defaultThreads(): number {
  const cores = os.availableParallelism();
  return cores <= 2 ? 0 : Math.min(4, cores - 1);
}

export class Validator {
  private readonly threads: ValidatorThread[] = [];
  private next = 0;
  private id = 0;
  /**
   * whether an inline inspection hands its parsed value on (to the analysis on the main
   * thread); false when analysis threads parse the stored line themselves: the compact
   * form is then not restored and the value not kept until the append (relay.ts)
   */
  keepValue = true;

  /**
   * `threads` = 0: everything inline. The default leaves two cores to the relay: on a
   * 2-core machine the copies and wake-ups of a worker cost more than they save (measured
   * with bench/relay.ts), so only larger machines use worker threads. With the relay's
   * analysis on, the relay asks for none (relay.ts): an inspection made inline hands its
   * parsed and validated value on to the analysis, one made on a thread cannot (cloning
   * the value back costs more than parsing), so the main thread would parse and validate
   * every message again (bench/relay.ts with --validator-threads 1: 3.6 ms of relay CPU per
   * snapshot against 1.0 inline, docs/perf-log/notebook.md "Relay under load").
   */
  constructor(
    private readonly limits: RelayLimits,
    threads = defaultThreads(),
    log: (line: string) => void = () => {},
  ) {
    for (let i = 0; i < threads; i++) this.threads.push(new ValidatorThread(limits, log));
  }

  inspect(bytes: Buffer): Inspection | Promise<Inspection> {
    if (this.threads.length === 0 || bytes.length < INLINE_BYTES) return inspect(bytes, this.limits, this.keepValue, true);
    const thread = this.threads[this.next++ % this.threads.length]!;
    return new Promise((resolve) => thread.submit(++this.id, bytes, resolve));
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
