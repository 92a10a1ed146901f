// Ingest backpressure, shared by both stores (ingest.ts, redisStore.ts): the bytes of messages
// received and not yet answered. Past MAX_WAITING_BYTES the relay is saturated and harness
// sockets stop being read; they are read again once the waiting bytes fall back to half.
import type { IngestCounters } from './ingest.ts';

/** bytes of messages received and not yet answered before harness sockets stop being read */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024;

export class Backpressure {
  private readonly reliefListeners = new Set<() => void>();

  constructor(private readonly counters: IngestCounters) {}

  /** too much received and not yet answered: harness sockets should stop being read */
  get saturated(): boolean {
    return this.counters.waitingBytes > MAX_WAITING_BYTES;
  }

  /** A message of `bytes` was received. */
  arrived(bytes: number): void {
    this.counters.waiting++;
    this.counters.waitingBytes += bytes;
  }

  /** A message of `bytes` was answered: listeners hear when the relay stops being saturated. */
  answered(bytes: number): void {
    this.counters.waiting--;
    const wasOver = this.counters.waitingBytes > MAX_WAITING_BYTES / 2;
    this.counters.waitingBytes -= bytes;
    if (wasOver && this.counters.waitingBytes <= MAX_WAITING_BYTES / 2) for (const l of [...this.reliefListeners]) l();
  }

  /** Calls `listener` each time the relay stops being saturated, until the returned function is called. */
  onRelieved(listener: () => void): () => void {
    this.reliefListeners.add(listener);
    return () => this.reliefListeners.delete(listener);
  }

  /** Resolves once the relay is not saturated. */
  async relieved(): Promise<void> {
    while (this.saturated) {
      await new Promise<void>((resolve) => {
        const off = this.onRelieved(() => {
          off();
          resolve();
        });
      });
    }
  }
}
