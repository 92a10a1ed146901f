// contract §7 reference scorer, between the pipeline and the engine: decides per session
// whose scores the engine sees.
//   harness    every message as it came (the product before this stage existed)
//   auto       (default) an imported agent's session (an adapter's: Claude Code, Codex CLI, SWE-agent),
//              which never carries a score, is scored by the reference as it streams; a
//              transcript in the product's own format (contract §2) goes through untouched,
//              scored or not, so a version-1 transcript analyses exactly as it always did
//              (contract §7) and costs no extra parse
//   reference  every snapshot scored by the reference, harness scores replaced
//   both       harness scores stay, and each harness-scored snapshot also carries
//              `reference_agreement` (Kendall τ-b between the two rankings) for the
//              reference_disagreement signal (src/core/referenceDisagreement.ts); a session
//              whose spans never carry a score is scored by the reference instead
// "Never carries a score" is only known at the end of a file, so in `both` a native
// session's snapshots are held back until one carries a score (then all go on as they
// are) or the input ends (then all are scored): memory grows with such a session, which
// is why only the explicit option does it.
import type { Sha256Hex } from '../../core/analyse.ts';
import { kendallTauB } from '../../core/rankAgreement.ts';
import { Bm25Scorer, type ScorableSpan, type SpanScorer } from '../../core/referenceScorer.ts';
import { inReferenceScope } from '../../core/scope.ts';
import { TextMemo } from '../../core/textMemo.ts';
import { mayHoldLoneSurrogate } from '../../core/validate.ts';
import type { MessageFeed } from './pipeline.ts';
import { isObject, type JsonObject } from './json.ts';

export type ScorerMode = 'harness' | 'auto' | 'reference' | 'both';

export const SCORER_MODES: readonly ScorerMode[] = ['harness', 'auto', 'reference', 'both'];

export interface ScoringOptions {
  mode: ScorerMode;
  sha256: Sha256Hex;
  /**
   * false: the caller reads no score of a session in the reference scope (contract §8.1), nor
   * any figure made of them (the metrics' score statistics and canaries): `check`'s human
   * output, its folder table, the local sessions' rows, `diff`. Such a session is then not scored: its
   * spans go on unscored. Nothing else changes, since no detector that runs in that scope, and
   * so no finding, verdict or headline, reads a score (docs/engine.md, "Scores nobody reads").
   */
  readsReferenceScores?: boolean;
  /** one scorer per session (it remembers the session's task); default BM25 */
  makeScorer?: () => SpanScorer;
}

interface Held {
  value: unknown;
  line: number;
  noSurrogateEscape: boolean;
}

interface SessionScoring {
  /** null: not known yet (auto, both) */
  harness: boolean | null;
  held: Held[];
  scorer: SpanScorer;
  /** the scorer when it is the reference's own: its memo of the spans' texts holds their sha256s too (one lookup a span) */
  bm25: Bm25Scorer | null;
  /** another scorer's session: each span's text's sha256, by span id (unchanged texts are not hashed again) */
  hashes: TextMemo<string>;
  /** in the reference scope, for a caller that reads none of its scores (ScoringOptions.readsReferenceScores): not scored */
  unread: boolean;
}

export class ScoringStage implements MessageFeed {
  private readonly sessions = new Map<string, SessionScoring>();

  constructor(
    private readonly next: MessageFeed,
    private readonly options: ScoringOptions,
  ) {}

  text(text: string, line: number): void {
    // harness and auto leave a native message to the engine's own (faster) line path
    if (this.options.mode === 'harness' || this.options.mode === 'auto' || text.trim() === '') return this.next.text(text, line);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.next.text(text, line); // the engine words the error
    }
    // parsed once, here: the engine takes the value exactly as Engine.ingestLine would
    this.value(value, line, !mayHoldLoneSurrogate(text));
  }

  value(value: unknown, line: number, noSurrogateEscape: boolean, fromAdapter = false): void {
    const mode = this.options.mode;
    const sid = sessionIdOf(value);
    if (mode === 'harness' || sid === null || (mode === 'auto' && !fromAdapter)) return this.next.value(value, line, noSurrogateEscape);
    const s = this.session(sid, fromAdapter);
    const snapshot = isObject(value) && value.type === 'snapshot';
    if (s.harness === null) {
      if (!snapshot || !carriesScore(value)) {
        // a header before any held snapshot goes on now, so the session keeps its place
        if (snapshot || s.held.length > 0) s.held.push({ value, line, noSurrogateEscape });
        else this.next.value(value, line, noSurrogateEscape);
        return;
      }
      s.harness = true;
      this.release(s);
    }
    this.emit(s, { value, line, noSurrogateEscape });
  }

  error(line: number, message: string): void {
    this.next.error(line, message);
  }

  /** The session's scores are the reference's (so far): the dashboard says so (contract §7). */
  referenceScored(sessionId: string): boolean {
    return this.sessions.get(sessionId)?.harness === false;
  }

  /** A session that will send nothing more (a live source letting old ones go): its scorer and hashes are dropped. */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** The input ended: sessions that never carried a score are scored by the reference. */
  end(): void {
    for (const s of this.sessions.values()) {
      if (s.harness !== null) continue;
      s.harness = false;
      this.release(s);
    }
    this.next.end?.();
  }

  private session(sid: string, fromAdapter: boolean): SessionScoring {
    let s = this.sessions.get(sid);
    if (s === undefined) {
      const harness = this.options.mode === 'reference' || fromAdapter ? false : null;
      const scorer = this.options.makeScorer?.() ?? new Bm25Scorer();
      s = { harness, held: [], scorer, bm25: scorer instanceof Bm25Scorer ? scorer : null, hashes: new TextMemo(), unread: false };
      this.sessions.set(sid, s);
    }
    return s;
  }

  private release(s: SessionScoring): void {
    const held = s.held;
    s.held = [];
    for (const h of held) this.emit(s, h);
  }

  private emit(s: SessionScoring, h: Held): void {
    // a session no one reads the scores of: its snapshots go on as the adapter made them, every
    // span unscored, without a walk over their spans (ScoringOptions.readsReferenceScores)
    if (s.unread && isObject(h.value) && h.value.type === 'snapshot') return this.next.value(h.value, h.line, h.noSurrogateEscape);
    const spans = scorableSpans(h.value);
    if (spans === null) {
      // contract §7: a header says so when the reference scores the session, so a reader
      // that sees only the stream (the relay, a live dashboard) can show where scores came from
      const header = isObject(h.value) && h.value.type === 'session' && s.harness === false;
      if (!header) return this.next.value(h.value, h.line, h.noSurrogateEscape);
      const referenceHeader = { ...(h.value as JsonObject), scores: 'reference' };
      // the engine takes its scope from this very header (contract §8.1, scopeOf)
      s.unread = this.options.readsReferenceScores === false && inReferenceScope(referenceHeader);
      return this.next.value(referenceHeader, h.line, h.noSurrogateEscape);
    }
    const snapshot = h.value as JsonObject;
    if (s.harness === true) {
      if (this.options.mode !== 'both') return this.next.value(h.value, h.line, h.noSurrogateEscape);
      const withAgreement = { ...snapshot, reference_agreement: agreement(spans, s.scorer.scoreTurn(spans)) };
      return this.next.value(withAgreement, h.line, h.noSurrogateEscape);
    }
    this.writeReferenceScores(s, spans, snapshot.spans as JsonObject[]);
    this.next.value(snapshot, h.line, h.noSurrogateEscape);
  }

  /**
   * contract §2.3: each span's reference score and its binding, the hash of the text the score
   * was computed on. The message was parsed (or made by an adapter) for this pipeline alone:
   * set in place.
   */
  private writeReferenceScores(s: SessionScoring, spans: readonly ScorableSpan[], raw: JsonObject[]): void {
    const sha256 = this.options.sha256;
    if (s.bm25 !== null) {
      const texts = s.bm25.textsOf(spans);
      const reference = s.bm25.scoreTexts(spans, texts);
      for (let i = 0; i < raw.length; i++) {
        raw[i]!.score = reference[i]!;
        raw[i]!.text_sha256 = texts[i]!.sha256 ??= sha256(spans[i]!.text);
      }
    } else {
      const reference = s.scorer.scoreTurn(spans);
      for (let i = 0; i < raw.length; i++) {
        raw[i]!.score = reference[i]!;
        raw[i]!.text_sha256 = s.hashes.value(spans[i]!.span_id, spans[i]!.text, sha256);
      }
      s.hashes.prune(spans);
    }
  }
}

/** Rank agreement over the spans the harness scored (finite scores), against the reference's. */
function agreement(spans: readonly (ScorableSpan & { score?: unknown })[], reference: readonly number[]): number | null {
  const harness: number[] = [];
  const ref: number[] = [];
  spans.forEach((s, i) => {
    if (typeof s.score === 'number' && Number.isFinite(s.score)) {
      harness.push(s.score);
      ref.push(reference[i]!);
    }
  });
  const tau = kendallTauB(harness, ref);
  return tau === null ? null : Math.round(tau * 1e6) / 1e6;
}

/** The spans of a snapshot shaped well enough to score; null leaves the message to the engine's validation. */
function scorableSpans(value: unknown): (ScorableSpan & { score?: unknown })[] | null {
  if (!isObject(value) || value.type !== 'snapshot' || !Array.isArray(value.spans)) return null;
  for (const span of value.spans) {
    if (!isObject(span) || typeof span.span_id !== 'string' || typeof span.text !== 'string') return null;
  }
  return value.spans as (ScorableSpan & { score?: unknown })[];
}

function carriesScore(value: JsonObject): boolean {
  if (!Array.isArray(value.spans)) return false;
  for (const span of value.spans) if (isObject(span) && typeof span.score === 'number' && Number.isFinite(span.score)) return true;
  return false;
}

function sessionIdOf(value: unknown): string | null {
  return isObject(value) && typeof value.session_id === 'string' && value.session_id !== '' ? value.session_id : null;
}
