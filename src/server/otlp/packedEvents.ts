// The adapter's events as they cross from the decode thread to the event loop, and wait
// there in the reorder window (docs/security.md "Bounded amplification"). A model call's
// messages (a retrieval's documents) are most of an export and are only needed when its
// snapshot is built: each is written with v8.serialize, as it is extracted, into chunks of
// bytes that are transferred (not cloned) to the event loop; what crosses as objects is the
// rest of each event (ids, times, conversation). There, each event reads its messages from
// the chunk when they are asked for, and drops them again: held as objects they took ~3×
// the body (43 MiB for a 16 MiB GenAI export), cloned across threads twice that.
import v8 from 'node:v8';
import type { Extracted, InputMessage, ModelCall, RetrievedDocument, Retrieval } from '../../ingest/adapters/otlp/conventions.ts';
import type { PreparedExport } from '../../ingest/adapters/otlp/adapter.ts';
import type { Rejected } from '../../ingest/adapters/otlp/model.ts';

/** bytes of serialized payloads gathered before they are copied into one transferable chunk */
const CHUNK_BYTES = 1 << 20;

type Head = Omit<ModelCall, 'messages'> | Omit<Retrieval, 'documents'> | { kind: 'skip'; what: string };

export interface PackedEvent {
  key: string;
  head: Head;
  /** [chunk, offset, length] of the serialized messages or documents; null when there are none */
  payload: [number, number, number] | null;
}

export interface PackedExport {
  events: PackedEvent[];
  rejected: Rejected[];
  /** transferred with the message that carries this export */
  chunks: ArrayBuffer[];
}

/** Collects events one at a time (the decode thread), so no export's messages are ever all objects at once. */
export class EventPacker {
  private readonly events: PackedEvent[] = [];
  private readonly chunks: ArrayBuffer[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  add(key: string, event: Extracted): void {
    if (event.kind === 'skip') {
      this.events.push({ key, head: event, payload: null });
      return;
    }
    let head: Head;
    let list: InputMessage[] | RetrievedDocument[];
    if (event.kind === 'call') {
      const { messages, ...rest } = event;
      head = rest;
      list = messages;
    } else {
      const { documents, ...rest } = event;
      head = rest;
      list = documents;
    }
    this.events.push({ key, head, payload: list.length === 0 ? null : this.write(v8.serialize(list)) });
  }

  /** The export, its chunks ready to be transferred. */
  finish(rejected: Rejected[]): PackedExport {
    this.seal();
    return { events: this.events, rejected, chunks: this.chunks };
  }

  private write(bytes: Buffer): [number, number, number] {
    const at: [number, number, number] = [this.chunks.length, this.pendingBytes, bytes.length];
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= CHUNK_BYTES) this.seal();
    return at;
  }

  private seal(): void {
    if (this.pending.length === 0) return;
    // a buffer of its own (never Node's shared pool, which a transfer would take from every other Buffer)
    const chunk = Buffer.allocUnsafeSlow(this.pendingBytes);
    let offset = 0;
    for (const b of this.pending) {
      chunk.set(b, offset);
      offset += b.length;
    }
    this.chunks.push(chunk.buffer as ArrayBuffer);
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/**
 * The events as the adapter takes them (receivePrepared). A call's `messages` (a
 * retrieval's `documents`) are read from the chunk each time they are asked for, not kept:
 * the adapter asks once when it places the event and once when it builds the snapshot.
 */
export function unpack(packed: PackedExport): PreparedExport {
  const events = packed.events.map(({ key, head, payload }) => {
    if (head.kind === 'skip') return { key, event: head };
    const list = payload === null ? null : Buffer.from(packed.chunks[payload[0]]!, payload[1], payload[2]);
    const read = (): unknown[] => (list === null ? [] : (v8.deserialize(list) as unknown[]));
    const event = { ...head } as ModelCall | Retrieval;
    Object.defineProperty(event, head.kind === 'call' ? 'messages' : 'documents', { enumerable: true, get: read });
    return { key, event };
  });
  return { events, rejected: packed.rejected };
}
