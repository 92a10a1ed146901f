// The adapter's events as they cross from the decode thread to the event loop, and wait
// there in the reorder window (docs/security.md "Bounded amplification"). A model call's
// messages (a retrieval's documents) are most of an export and are only needed when its
// snapshot is built: each is written as JSON, as it is extracted, into chunks of bytes
// that are transferred (not cloned) to the event loop; what crosses as objects is the
// rest of each event (ids, times, conversation). There, each event reads its messages from
// the chunk when they are asked for, and drops them again: held as objects they took ~3×
// the body (43 MiB for a 16 MiB GenAI export), cloned across threads twice that.
import type { Extracted, InputMessage, MessagePart, ModelCall, RetrievedDocument, Retrieval } from '../../ingest/adapters/otlp/conventions.ts';
import type { PreparedExport } from '../../ingest/adapters/otlp/adapter.ts';
import type { Rejected } from '../../ingest/adapters/otlp/model.ts';

/** bytes of payloads written before they are copied out into one transferable chunk */
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
  /** where payloads are written, then copied out at their length (seal): one buffer for the whole export */
  private scratch: Buffer | null = null;
  private used = 0;

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
    // written as arrays, not objects: the property names of 10 messages a call were a third of the payload
    this.events.push({
      key,
      head,
      payload: list.length === 0 ? null : this.write(JSON.stringify(event.kind === 'call' ? packMessages(event.messages) : packDocuments(event.documents))),
    });
  }

  /** The export, its chunks ready to be transferred. */
  finish(rejected: Rejected[]): PackedExport {
    this.seal();
    this.scratch = null;
    return { events: this.events, rejected, chunks: this.chunks };
  }

  /**
   * JSON, not v8.serialize: written straight into the chunk, without a buffer per event
   * (those outlived their event until a full collection). Exact for what is written here:
   * strings (a lone surrogate is written as its \u escape), finite numbers, booleans, null.
   */
  private write(json: string): [number, number, number] {
    const length = Buffer.byteLength(json);
    if (this.scratch !== null && this.used + length > this.scratch.length) this.seal();
    this.scratch ??= Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length));
    const at: [number, number, number] = [this.chunks.length, this.used, length];
    this.scratch.write(json, this.used);
    this.used += length;
    return at;
  }

  private seal(): void {
    if (this.scratch === null || this.used === 0) return;
    // a buffer of its own, of the length written (never Node's shared pool, which a transfer would take from every other Buffer)
    const chunk = Buffer.allocUnsafeSlow(this.used);
    this.scratch.copy(chunk, 0, 0, this.used);
    this.chunks.push(chunk.buffer as ArrayBuffer);
    this.used = 0;
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
    const json = (): unknown[] => (list === null ? [] : (JSON.parse(list.toString('utf8')) as unknown[]));
    // the head itself becomes the event (no copy of it is made)
    const event = head as ModelCall | Retrieval;
    if (event.kind === 'call') Object.defineProperty(event, 'messages', { enumerable: true, get: () => unpackMessages(json() as PackedMessage[]) });
    else Object.defineProperty(event, 'documents', { enumerable: true, get: () => unpackDocuments(json() as PackedDocument[]) });
    return { key, event };
  });
  return { events, rejected: packed.rejected };
}

/** an InputMessage as written: role, summary (1 or 0), then each part's type and text */
type PackedMessage = [string, number, ...string[]];
/** a RetrievedDocument as written */
type PackedDocument = [string | null, string, number | null, boolean];

function packMessages(messages: InputMessage[]): PackedMessage[] {
  return messages.map((m) => [m.role, m.summary ? 1 : 0, ...m.parts.flatMap((p) => [p.type, p.text])]);
}

function unpackMessages(packed: PackedMessage[]): InputMessage[] {
  return packed.map(([role, summary, ...rest]) => {
    const parts: MessagePart[] = [];
    for (let k = 0; k < rest.length; k += 2) parts.push({ type: rest[k]!, text: rest[k + 1]! });
    return { role, parts, summary: summary === 1 };
  });
}

function packDocuments(documents: RetrievedDocument[]): PackedDocument[] {
  return documents.map((d) => [d.id, d.text, d.score, d.pinned]);
}

function unpackDocuments(packed: PackedDocument[]): RetrievedDocument[] {
  return packed.map(([id, text, score, pinned]) => ({ id, text, score, pinned }));
}
