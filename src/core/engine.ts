// The incremental engine every door runs (Worker, CLI, relay): one message at a time,
// any number of interleaved sessions, per-session state only what the detectors need.
import { declaresCompact, expandSnapshot, omissionError, omissionsOf } from './compact.ts';
import { notJsonMessage, sessionIdOf } from './inputErrors.ts';
import { Binding, SessionAnalysis, type Sha256Hex, type TurnResult } from './analyse.ts';
import { resolveThresholds, type Thresholds } from './config.ts';
import { scopeOf } from './scope.ts';
import { jsonEqual, NO_TEXT_HASHES, snapshotFingerprint, spanObjectHash, type TextHashes } from './equality.ts';
import { SpanTable } from './spanTable.ts';
import { mayHoldLoneSurrogate, validateMessage, validateTrusted, type Validated } from './validate.ts';
import type { SessionHeader, Snapshot } from './wire.ts';

export interface InputError {
  /** 1-based line of the file, or the frame's sequence number on a live stream. */
  line: number;
  message: string;
  session_id?: string;
}

export type Outcome =
  | { kind: 'turn'; result: TurnResult; snapshot: Snapshot }
  | { kind: 'header'; sessionId: string; header: SessionHeader }
  | { kind: 'ignored'; reason: 'blank' | 'replayed' }
  | { kind: 'error'; error: InputError };

export interface EngineOptions {
  sha256: Sha256Hex;
  /** Thresholds set by the user: they override each session header's config (contract §4). */
  userThresholds?: Partial<Thresholds>;
  /**
   * How many accepted turns per session keep a replay fingerprint (default: all). The relay
   * sets a small number: it recognises retries itself before the engine sees them, and its
   * memory per session must not grow with the number of turns. 0: no fingerprint is
   * computed at all (hashing every span each turn), and a snapshot whose turn is below the
   * last one is an error rather than a recognised replay: for a caller that refuses those
   * itself before the engine sees them (the relay's gate, sessionGate.ts).
   */
  replayMemory?: number;
  /**
   * How many pruned ids per session are remembered for orphaned_parent's message ("pruned
   * earlier" or "never seen pruned"; default: all). The relay bounds it: it reports
   * verdicts and signals, never that message, and its memory must not grow with turns.
   */
  prunedMemory?: number;
  /** contract §8.7 `--context-window N`: the window when neither the model table nor the header gives one */
  contextWindow?: number;
  /**
   * false: the caller reads no per-span figure of any turn (check's human output, its folder
   * table, the local sessions' rows, diff), so no turn gets `tokens_by_kind` (contract §8.7):
   * it was made for every turn of a session and kept for the whole session, and nothing read it.
   */
  readsSpanFigures?: boolean;
}

interface SessionSlot {
  header: SessionHeader | null;
  analysis: SessionAnalysis;
  last: Snapshot | null;
  /** `last`'s span table: where a compact snapshot's left-out texts are looked up (contract §7) */
  lastTable: SpanTable | null;
  /** turn → fingerprint of the accepted snapshot, to recognise an older snapshot replayed */
  digests: Map<number, number>;
  /** the span texts of the last accepted snapshot, hashed, by index (snapshotFingerprint) */
  textHashes: TextHashes;
  /** the accepted table before `lastTable`, which nothing reads any more: its index is reused (validateMessage) */
  spare: SpanTable | null;
}

export class Engine {
  private readonly sessions = new Map<string, SessionSlot>();
  private userThresholds: Partial<Thresholds>;
  private replayMemory: number;
  /** messages come validated here (ingestParsedLine): spare tables are kept for it (a caller that validates, the relay's gate, keeps none) */
  private validatesItself = false;

  constructor(private readonly options: EngineOptions) {
    this.userThresholds = options.userThresholds ?? {};
    this.replayMemory = options.replayMemory ?? Number.POSITIVE_INFINITY;
  }

  /**
   * No replay fingerprints from now on (replayMemory 0), for input in which no earlier turn
   * of a session can come again: another agent's transcript, whose adapter numbers the turns
   * itself, one more per model call (docs/adapters.md "Turns"). Hashing every span of every
   * turn, with each span object's own hash, was 30% of the engine's time on such input
   * (docs/perf-log/2026-12-05-forgone-replays.md). Only before
   * the first message: a session's fingerprints are all kept or none.
   */
  forgoReplays(): void {
    if (this.sessions.size > 0) throw new Error('forgoReplays: the engine has already read a message');
    this.replayMemory = 0;
  }

  /** How many sessions the engine has read a message of. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Session ids in the order they first appeared. */
  sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  header(sessionId: string): SessionHeader | null {
    return this.sessions.get(sessionId)?.header ?? null;
  }

  thresholds(sessionId: string): Thresholds | null {
    return this.sessions.get(sessionId)?.analysis.thresholds ?? null;
  }

  /** The session's analysis state: its scope (contract §8.1) and its compactions (§8.3). */
  analysis(sessionId: string): SessionAnalysis | null {
    return this.sessions.get(sessionId)?.analysis ?? null;
  }

  /** One line of JSONL (without its newline). */
  ingestLine(text: string, line: number): Outcome {
    const parsed = parseLine(text, line);
    if (parsed.kind !== 'parsed') return parsed;
    return this.ingestParsedLine(parsed.value, line, !mayHoldLoneSurrogate(text));
  }

  /**
   * One line of JSONL that was validated in full before (contract §2): the relay's analysis
   * threads read lines its gate accepted and stored. Parsed, its compact texts carried
   * (contract §7), and analysed without validating again (validateTrusted). Only an engine
   * without replay fingerprints (replayMemory 0) skips the validation, since the spans'
   * object hashes are not computed; any other reads it as ingestLine does.
   */
  ingestTrustedLine(text: string, line: number): Outcome {
    if (this.replayMemory > 0) return this.ingestLine(text, line);
    const parsed = parseLine(text, line);
    if (parsed.kind !== 'parsed') return parsed;
    const carried = this.carryCompact(parsed.value, line);
    if ('kind' in carried) return carried;
    const checked = validateTrusted(carried.value);
    return checked.ok ? this.accept(checked, line) : invalid(carried.value, checked.error, line);
  }

  /** An already parsed message, its source text not known (replays are recognised on the parsed value, contract §2). */
  ingestValue(value: unknown, line: number): Outcome {
    return this.ingestParsedLine(value, line, false);
  }

  /**
   * A message the caller parsed itself. `noSurrogateEscape`: the caller knows the JSON text
   * had no `\uD800`–`\uDFFF` escape (`mayHoldLoneSurrogate` is false), so no string of the
   * value can be a lone surrogate and the per-string check is skipped.
   */
  ingestParsedLine(value: unknown, line: number, noSurrogateEscape: boolean): Outcome {
    // one lookup of the session serves the compact wire and the spare table (a carried value keeps its session_id)
    const slot = this.slotOf(value);
    const carried = this.carryCompact(value, line, slot);
    if ('kind' in carried) return carried;
    // the spans' object hashes only serve the replay fingerprint (the depth rule is checked either way)
    const checked = validateMessage(carried.value, noSurrogateEscape, {
      spare: this.takeSpare(slot),
      known: slot?.lastTable ?? null,
      objectHashes: this.replayMemory > 0,
    });
    return checked.ok ? this.accept(checked, line) : invalid(carried.value, checked.error, line);
  }

  /** The session's spare table (validation takes its index over), once: it is no one's after. */
  private takeSpare(slot: SessionSlot | undefined): SpanTable | null {
    this.validatesItself = true;
    if (slot === undefined || slot.spare === null) return null;
    const spare = slot.spare;
    slot.spare = null;
    return spare;
  }

  /**
   * contract §7 compact wire: in a session that declared it, a snapshot's left-out texts are
   * carried forward before anything else reads it. The value to read on, or the error.
   */
  private carryCompact(value: unknown, line: number, slot = this.slotOf(value)): { value: unknown } | Outcome {
    if (slot === undefined || !declaresCompact(slot.header)) return { value };
    const sid = slot.analysis.sessionId;
    const carried = carryTexts(value, sid, slot.last, slot.lastTable);
    if (typeof carried === 'string') return { kind: 'error', error: { line, message: carried, session_id: sid } };
    return { value: carried };
  }

  /** The session the message names, when one has been seen. */
  private slotOf(value: unknown): SessionSlot | undefined {
    const sid = sessionIdOf(value);
    return sid === undefined ? undefined : this.sessions.get(sid);
  }

  /**
   * A message the caller parsed and validated itself (`validateMessage` accepted it): the
   * relay's gate, whose validation this saves doing twice. A compact snapshot (contract §7)
   * was validated with its left-out texts as empty strings and is back in its compact form:
   * the texts are carried here, into the value and the span table alike. Carried texts were
   * validated with the snapshot they came from, and no rule of contract §2 depends on a
   * text's content, so nothing is left unchecked.
   */
  ingestValidated(checked: Validated & { ok: true }, line: number): Outcome {
    const value = checked.message;
    const slot = this.sessions.get(value.session_id);
    if (value.type === 'snapshot' && slot !== undefined && declaresCompact(slot.header)) {
      const om = omissionsOf(value);
      if (om !== null) {
        const carried = carryTexts(value, value.session_id, slot.last, slot.lastTable);
        if (typeof carried === 'string') return { kind: 'error', error: { line, message: carried, session_id: value.session_id } };
        const table = checked.spans;
        if (table !== undefined) {
          for (const i of om.indices) {
            table.texts[i] = value.spans[i]!.text;
            // the object now holds one more key, which its hash counts (replay fingerprint)
            if (this.replayMemory > 0) table.objectHashes[i] = spanObjectHash(value.spans[i]!);
          }
        }
      }
    }
    return this.accept(checked, line);
  }

  private accept(checked: Validated & { ok: true }, line: number): Outcome {
    const message = checked.message;
    const sid = message.session_id;
    let slot = this.sessions.get(sid);
    if (message.type === 'session') {
      if (slot === undefined) {
        slot = this.newSlot(sid, message);
        return { kind: 'header', sessionId: sid, header: message };
      }
      if (slot.header !== null && jsonEqual(slot.header, message)) return { kind: 'ignored', reason: 'replayed' };
      const why =
        slot.header === null
          ? `a session header for ${JSON.stringify(sid)} must come before its first snapshot`
          : `a second, different session header for ${JSON.stringify(sid)}: a session has one header`;
      return { kind: 'error', error: { line, message: why, session_id: sid } };
    }

    slot ??= this.newSlot(sid, null);
    const last = slot.last;
    if (last !== null && message.turn <= last.turn) {
      // contract §2: a snapshot equal (as parsed JSON) to one already received is a replayed frame, ignored.
      if (message.turn === last.turn ? jsonEqual(last, message) : slot.digests.get(message.turn) === this.fingerprintUnseen(message, checked.spans)) {
        return { kind: 'ignored', reason: 'replayed' };
      }
      return {
        kind: 'error',
        error: {
          line,
          session_id: sid,
          message: `turn ${message.turn} of session ${JSON.stringify(sid)} does not increase (the previous snapshot was turn ${last.turn})`,
        },
      };
    }
    const table = checked.spans ?? SpanTable.of(message.spans);
    // the table the memo of text hashes is of: the last snapshot fingerprinted (the last accepted)
    const fingerprinted = slot.lastTable;
    const result = slot.analysis.analyse(message, table);
    slot.last = message;
    // the table before the last is read by nothing from now on: its index serves the next snapshot's validation
    slot.spare = this.validatesItself ? slot.lastTable : null;
    slot.lastTable = table;
    // the analysis has compared every text with last turn's and checked every text_sha256
    if (this.replayMemory === 0) return { kind: 'turn', result, snapshot: message };
    const { checks, sameTextAt } = result;
    const fingerprint = snapshotFingerprint(message, table, slot.textHashes, {
      sameTextAt: (i) => sameTextAt[i]!,
      claimMatches: (i) => checks[i]!.binding !== Binding.Stale,
      previous: fingerprinted,
    });
    slot.digests.set(message.turn, fingerprint.hash);
    // a Map iterates in insertion order, which is turn order: the first key is the oldest turn
    if (slot.digests.size > this.replayMemory) slot.digests.delete(slot.digests.keys().next().value!);
    slot.textHashes = fingerprint.memo;
    return { kind: 'turn', result, snapshot: message };
  }

  /** The fingerprint of a snapshot that was not analysed (a possible replay): nothing is known, all is hashed. */
  private fingerprintUnseen(message: Snapshot, table: SpanTable | undefined): number {
    const t = table ?? SpanTable.of(message.spans);
    return snapshotFingerprint(message, t, NO_TEXT_HASHES, {
      previous: null,
      sameTextAt: () => -1,
      claimMatches: (i) => this.options.sha256(t.texts[i]!) === t.claims[i],
    }).hash;
  }

  private newSlot(sid: string, header: SessionHeader | null): SessionSlot {
    const thresholds = resolveThresholds(header?.config, this.userThresholds);
    const slot: SessionSlot = {
      header,
      analysis: new SessionAnalysis(sid, thresholds, this.options.sha256, this.options.prunedMemory),
      last: null,
      lastTable: null,
      digests: new Map(),
      textHashes: NO_TEXT_HASHES,
      spare: null,
    };
    slot.analysis.scope = scopeOf(header);
    const cw = header?.context_window;
    if (typeof cw === 'number' && Number.isInteger(cw) && cw > 0) slot.analysis.headerWindow = cw;
    slot.analysis.optionWindow = this.options.contextWindow ?? null;
    if (this.options.readsSpanFigures === false) slot.analysis.composition = false;
    this.sessions.set(sid, slot);
    return slot;
  }
}

/** A message that failed validation, as the error outcome (with its session where it names one). */
function invalid(value: unknown, message: string, line: number): Outcome {
  const sid = sessionIdOf(value);
  return { kind: 'error', error: { line, message, ...(sid === undefined ? {} : { session_id: sid }) } };
}

/**
 * contract §7 compact wire: the snapshot with its left-out texts filled in from the
 * previous accepted snapshot, or why that cannot be done. A resent copy of the last
 * snapshot (its turn again) takes its texts from that snapshot itself: a left-out text
 * was the same there, so an honest retry expands to exactly what was accepted.
 */
function carryTexts(value: unknown, sid: string, last: Snapshot | null, lastTable: SpanTable | null): unknown {
  const om = omissionsOf(value);
  if (om === null) return value;
  const turn = (value as { turn?: unknown }).turn;
  if (last !== null && turn === last.turn && om.baseTurn !== last.turn) om.baseTurn = last.turn;
  // the previous snapshot's table already maps ids to texts: no map of 200 texts per snapshot
  const table = lastTable ?? (last === null ? null : SpanTable.of(last.spans));
  const error = omissionError(sid, turn, om, table === null ? null : { turn: last!.turn, has: (id) => table.index.has(id) });
  if (error !== null) return error;
  return expandSnapshot(value as object, om, (id) => table!.texts[table!.index.get(id)!]!);
}

/** A line's JSON value, or what the engine answers for a blank line or one that is not JSON. */
function parseLine(text: string, line: number): { kind: 'parsed'; value: unknown } | Outcome {
  if (isBlank(text)) return { kind: 'ignored', reason: 'blank' };
  try {
    return { kind: 'parsed', value: JSON.parse(text) as unknown };
  } catch (e) {
    return { kind: 'error', error: { line, message: notJsonMessage(text, e) } };
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}
