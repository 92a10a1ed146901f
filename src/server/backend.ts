// What the relay's routes and sockets need of where sessions live, so that the embedded
// JSONL files (store.ts, the default) and Redis Streams (redisStore.ts, `serve --store
// redis://…`, docs/scale-out.md) plug in alike: a directory of sessions (list, one, delete,
// the transcript), the ingest path (ingest.ts's public face) and the subscribers
// (fanout.ts's public face).
import type { WebSocket } from 'ws';
import type { RelaySession } from '../protocol/relay.ts';
import type { FanoutStats } from './fanout.ts';
import type { IngestCounters, IngestResult } from './ingest.ts';
import { readChunks, type SessionLogStore } from './store.ts';

export interface IngestPort {
  message(raw: Buffer): Promise<IngestResult>;
  readonly saturated: boolean;
  readonly counters: IngestCounters;
  onRelieved(listener: () => void): () => void;
  relieved(): Promise<void>;
}

export interface SubscriberPort {
  subscribe(ws: WebSocket, sessionId: string, since: number): unknown;
  closeAll(code: number, reason: string, sessionId?: string): void;
  stats(): FanoutStats;
  /** subscribers connected */
  count(): number;
}

export interface Transcript {
  lastSeq: number;
  /** bytes of the lines, when known before reading them */
  bytes: number | null;
  /** exactly lastSeq lines, each ending in LF */
  chunks(): AsyncIterable<Buffer>;
}

export interface SessionDirectory {
  /** most recently updated first */
  list(): Promise<RelaySession[]>;
  info(sessionId: string): Promise<RelaySession | undefined>;
  delete(sessionId: string): Promise<boolean>;
  transcript(sessionId: string): Promise<Transcript | undefined>;
  /** sessions held, as last known (for /api/health) */
  count(): number;
  /** why nothing more can be stored, or null */
  readonly lost: string | null;
}

/** The JSONL files' directory: SessionLogStore as it is. */
export class FileDirectory implements SessionDirectory {
  constructor(private readonly store: SessionLogStore) {}

  get lost(): string | null {
    return this.store.lost;
  }

  count(): number {
    return this.store.count();
  }

  list(): Promise<RelaySession[]> {
    return Promise.resolve(this.store.byRecency().map((s) => s.info()));
  }

  info(sessionId: string): Promise<RelaySession | undefined> {
    return Promise.resolve(this.store.get(sessionId)?.info());
  }

  delete(sessionId: string): Promise<boolean> {
    return Promise.resolve(this.store.delete(sessionId));
  }

  transcript(sessionId: string): Promise<Transcript | undefined> {
    const s = this.store.get(sessionId);
    if (s === undefined) return Promise.resolve(undefined);
    const end = s.size;
    return Promise.resolve({ lastSeq: s.lastSeq, bytes: end, chunks: () => readChunks(s.file, 0, end) });
  }
}
