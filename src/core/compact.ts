// contract §7 compact wire (version 1.1): a span may leave out `text` when its text is the
// same as in the session's previous accepted snapshot. This module is the one carry-forward
// every reader uses (the engine, hence `check` and the Worker; the relay's gate; `replay
// --expand` and the relay's expanded export), so they all accept and refuse the same input.
//
// Version 1 stays byte for byte: carrying happens only in a session whose header declares
// `"wire": "1.1"` and only for a snapshot that names the turn its texts are carried from
// (`base_turn`). A version-1 message that lacks a text gets exactly the version-1 error.

/** The header value that turns the compact wire on for a session (contract §7). */
export const COMPACT_WIRE = '1.1';

/** Whether a session header (a parsed value) declares the compact wire. */
export function declaresCompact(header: unknown): boolean {
  return typeof header === 'object' && header !== null && (header as { wire?: unknown }).wire === COMPACT_WIRE;
}

/** The spans of a snapshot-like value that leave out `text`: their index and id. Structural only. */
export interface Omissions {
  /** indices of the spans that are objects with a string span_id and no `text` key */
  indices: number[];
  ids: string[];
  /** the snapshot's `base_turn` as sent (any type) */
  baseTurn: unknown;
}

/** Omissions of a parsed message, or null when no span leaves out its text (the version-1 case). */
export function omissionsOf(value: unknown): Omissions | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as { type?: unknown; spans?: unknown; base_turn?: unknown };
  if (v.type !== 'snapshot' || !Array.isArray(v.spans)) return null;
  let out: Omissions | null = null;
  const spans = v.spans as unknown[];
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    if (typeof s !== 'object' || s === null || Array.isArray(s)) continue;
    const span = s as { span_id?: unknown; text?: unknown };
    if (span.text !== undefined || typeof span.span_id !== 'string') continue;
    out ??= { indices: [], ids: [], baseTurn: v.base_turn };
    out.indices.push(i);
    out.ids.push(span.span_id);
  }
  return out;
}

/** What a reader knows of a session's previous accepted snapshot. */
export interface PreviousSnapshot {
  turn: number;
  /** whether that snapshot held a span of this id (and so a text to carry) */
  has: (spanId: string) => boolean;
}

/**
 * Why these omissions cannot be carried, or null when they can. `turn` is the snapshot's
 * own turn, for the message. The message names the turn, the span and the reason; the
 * caller adds the line or frame (contract §2.5).
 */
export function omissionError(sessionId: string, turn: unknown, om: Omissions, previous: PreviousSnapshot | null): string | null {
  const first = `span ${om.indices[0]!} (${JSON.stringify(om.ids[0]!)})`;
  const at = typeof turn === 'number' ? `turn ${turn}: ` : '';
  const rule = '(contract §7 compact wire: a span may leave out its text only when the previous snapshot had it)';
  if (previous === null) {
    return `${at}${first} leaves out its text, but session ${JSON.stringify(sessionId)} has no previous snapshot to carry it from; send the text ${rule}`;
  }
  if (typeof om.baseTurn !== 'number' || om.baseTurn !== previous.turn) {
    const got = om.baseTurn === undefined ? 'it has no base_turn' : `its base_turn is ${JSON.stringify(om.baseTurn)}`;
    return `${at}${first} leaves out its text, but ${got} while the previous snapshot of session ${JSON.stringify(sessionId)} is turn ${previous.turn}: a snapshot that leaves out texts must name that turn in base_turn ${rule}`;
  }
  for (let k = 0; k < om.ids.length; k++) {
    if (!previous.has(om.ids[k]!)) {
      return `${at}span ${om.indices[k]!} (${JSON.stringify(om.ids[k]!)}) leaves out its text, but the previous snapshot (turn ${previous.turn}) of session ${JSON.stringify(sessionId)} has no span of that id; send the text ${rule}`;
    }
  }
  return null;
}

/**
 * Fills every left-out text in from `textOf` and removes `base_turn`: the value becomes a
 * version-1 snapshot, **in place** (the callers own the value they parsed; the relay stores
 * the bytes it received, not this value). In place because copying 200 span objects cost
 * more than parsing the compact line (and left the validator's hot path megamorphic).
 */
export function expandSnapshot<T extends object>(value: T, om: Omissions, textOf: (spanId: string) => string): T {
  const v = value as T & { base_turn?: unknown; spans: Record<string, unknown>[] };
  delete v.base_turn;
  const spans = v.spans;
  for (let k = 0; k < om.indices.length; k++) spans[om.indices[k]!]!.text = textOf(om.ids[k]!);
  return value;
}

/**
 * A streaming expander for whole logs (`replay --expand`, the relay's expanded export):
 * every line in, the same line out, with compact snapshots made whole. It trusts that the
 * input was accepted by a reader (a relay log): a line it cannot carry is left as it is,
 * and a reader of the output reports it.
 */
export class TextCarry {
  private readonly sessions = new Map<string, { compact: boolean; turn: number; texts: Map<string, string> | null }>();

  /** The message to pass on: `value` itself when nothing was left out, else a new object (and `value`'s spans are filled in). */
  expand(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const m = value as { type?: unknown; session_id?: unknown; turn?: unknown; spans?: unknown };
    if (typeof m.session_id !== 'string') return value;
    let s = this.sessions.get(m.session_id);
    if (m.type === 'session') {
      if (s === undefined) this.sessions.set(m.session_id, { compact: declaresCompact(value), turn: 0, texts: null });
      return value;
    }
    if (m.type !== 'snapshot' || !Array.isArray(m.spans) || typeof m.turn !== 'number') return value;
    if (s === undefined) this.sessions.set(m.session_id, (s = { compact: false, turn: 0, texts: null }));
    if (s.texts !== null && m.turn <= s.turn) return value; // a replayed frame: readers ignore it
    let out = value;
    const om = s.compact ? omissionsOf(value) : null;
    if (om !== null) {
      const texts = s.texts;
      const error = omissionError(m.session_id, m.turn, om, texts === null ? null : { turn: s.turn, has: (id) => texts.has(id) });
      // a new object, so that the caller sees that this line changed
      if (error === null) out = { ...expandSnapshot(value, om, (id) => texts!.get(id)!) };
    }
    const next = new Map<string, string>();
    for (const span of (out as { spans: unknown[] }).spans) {
      const sp = span as { span_id?: unknown; text?: unknown };
      if (typeof sp.span_id === 'string' && typeof sp.text === 'string') next.set(sp.span_id, sp.text);
    }
    s.texts = next;
    s.turn = m.turn;
    return out;
  }
}

/**
 * A sender's side (the TypeScript client; the Python client does the same): which texts of
 * a snapshot may be left out, by comparing the strings themselves with those last sent for
 * the session. Never a hash the caller was given: a text rewritten under an old
 * `text_sha256` must still reach the reader, or the stale score would go unseen.
 */
export class TextOmitter {
  private readonly last = new Map<string, { turn: number; texts: Map<string, string> }>();

  /** Forget every session's texts: the next snapshot of each is sent whole (after a reconnect). */
  reset(): void {
    this.last.clear();
  }

  forget(sessionId: string): void {
    this.last.delete(sessionId);
  }

  /**
   * The snapshot to send: spans whose text equals the previous one of the same id leave it
   * out, and `base_turn` names that previous snapshot; whole when nothing can be left out.
   */
  compact<S extends { session_id: string; turn: number; spans: readonly { span_id: string; text: string }[] }>(
    snapshot: S,
  ): S | (Omit<S, 'spans'> & { base_turn: number; spans: object[] }) {
    const prev = this.last.get(snapshot.session_id);
    const texts = new Map<string, string>();
    let omitted = 0;
    const spans: object[] = new Array<object>(snapshot.spans.length);
    for (let i = 0; i < snapshot.spans.length; i++) {
      const span = snapshot.spans[i]!;
      texts.set(span.span_id, span.text);
      if (prev !== undefined && prev.texts.get(span.span_id) === span.text) {
        const { text: _text, ...rest } = span;
        spans[i] = rest;
        omitted++;
      } else {
        spans[i] = span;
      }
    }
    this.last.set(snapshot.session_id, { turn: snapshot.turn, texts });
    if (omitted === 0 || prev === undefined) return snapshot;
    return { ...snapshot, base_turn: prev.turn, spans };
  }
}

/**
 * Whether two copies of one snapshot are the same message, one or both in the compact
 * form: equal as parsed JSON once `base_turn` and every text that either copy left out are
 * set aside. The relay uses it to recognise a retry that a new connection sent whole of a
 * snapshot stored compact (or the reverse); a text left out on one side cannot differ from
 * the other's without the harness having changed the turn it is resending.
 */
export function sameSnapshotModuloOmissions(a: unknown, b: unknown, equal: (x: unknown, y: unknown) => boolean): boolean {
  const sa = a as { type?: unknown; spans?: unknown };
  const sb = b as { type?: unknown; spans?: unknown };
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  if (sa.type !== 'snapshot' || sb.type !== 'snapshot' || !Array.isArray(sa.spans) || !Array.isArray(sb.spans) || sa.spans.length !== sb.spans.length)
    return false;
  const strip = (v: object, other: unknown[]): object => {
    const { base_turn: _b, spans, ...rest } = v as { base_turn?: unknown; spans: unknown[] };
    return {
      ...rest,
      spans: spans.map((s, i) => {
        const o = other[i] as { text?: unknown } | undefined;
        const span = s as { text?: unknown };
        if (typeof s !== 'object' || s === null || (span.text !== undefined && o?.text !== undefined)) return s;
        const { text: _t, ...without } = span;
        return without;
      }),
    };
  };
  return equal(strip(a, sb.spans), strip(b, sa.spans));
}
