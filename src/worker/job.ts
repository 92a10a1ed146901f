// One analysis job of the Controller (controller.ts): a file, a fetched sample or a live
// relay session, its engine, its per-session stores and what its summary events say.
import type { Sha256Hex } from '../core/analyse.ts';
import { resolveThresholds, THRESHOLD_KEYS, type Thresholds } from '../core/config.ts';
import { Engine, type InputError, type Outcome } from '../core/engine.ts';
import { InputErrorList, LISTED_INPUT_ERRORS } from '../core/inputErrorList.ts';
import { ReferenceDisagreement } from '../core/referenceDisagreement.ts';
import type { ScorerMode } from '../ingest/adapters/scoringStage.ts';
import { SIGNALS, type Signal } from '../core/signals.ts';
import { notApplicable, scopeOf } from '../core/scope.ts';
import type { SessionHeader } from '../core/wire.ts';
import { KnownDigests, type LineRecord, type ReadSnapshot, type TakenRecord } from '../ingest/lineRecords.ts';
import type { LiveSubscription } from './liveSource.ts';
import type { JobSummary, LoadProgress, SessionSummary, Source } from './protocol.ts';
import { ACTIONS, TurnColumnStore, type StoreLimits } from '../results/store.ts';
import { isNotARecord, notATranscriptSentence } from '../ingest/adapters/notATranscript.ts';

/** Input errors kept to list on screen, as `check` keeps them (contract §2.5); the rest are only counted, by reason. */
export const MAX_LISTED_ERRORS = LISTED_INPUT_ERRORS;

export class Job {
  readonly engine: Engine;
  /** contract §7 reference_disagreement, after the engine, exactly as src/cli/check.ts wires it */
  readonly disagreement = new ReferenceDisagreement();
  readonly stores = new Map<string, TurnColumnStore>();
  /** the first input errors by line, the rest counted (contract §2.5): the Worker never holds them all */
  readonly errors = new InputErrorList<InputError>(MAX_LISTED_ERRORS, (e) => this.errorAfterTurn.delete(e));
  /** the engine's sha256, told the digests a parsing Worker computed for the record taken in */
  readonly digests: KnownDigests;
  /** an input error of a record of some format (not a line of none): the file is a transcript, if a broken one */
  private someRecord = false;
  /** the turn of the last snapshot read, in file order: where an input error fell on the turn axis */
  lastTurn: number | null = null;
  private readonly errorAfterTurn = new WeakMap<InputError, number | null>();
  lines = 0;
  format: JobSummary['format'] = 'unknown';
  gzip = false;
  /** contract §7 adapters: set when the file was another agent's transcript */
  adapter: JobSummary['adapter'];
  readonly abort = new AbortController();
  live: LiveSubscription | null = null;
  started = performance.now();
  progress: LoadProgress = { bytesRead: 0, bytesTotal: null, elapsedMs: 0 };
  finished = false;
  /** why the job was stopped by an error nothing else caught (see Controller.fail) */
  failure: string | null = null;
  /** OpenRequest.pacedSummaries: a summary was sent and the page has not said it drew it */
  paced = false;
  awaitingDrawn = false;
  /** data arrived while awaiting: a summary is due when the page has drawn */
  summaryDue = false;
  lastSummaryAt = 0;
  /** a summary holding a turn was sent (the first one goes at once: scheduleSummary) */
  turnsSent = false;

  constructor(
    readonly id: number,
    readonly source: Source,
    readonly userThresholds: Partial<Thresholds>,
    readonly scorer: ScorerMode,
    sha256: Sha256Hex,
    private readonly limits: StoreLimits,
  ) {
    this.digests = new KnownDigests(sha256);
    this.engine = new Engine({ sha256: this.digests.sha256, userThresholds });
  }

  engineMs = 0;
  storeMs = 0;
  decodeMs = 0;

  /** One JSONL line through the engine, timed. */
  line(text: string, line: number): void {
    const t0 = performance.now();
    const outcome = this.engine.ingestLine(text, line);
    this.engineMs += performance.now() - t0;
    this.take(outcome);
  }

  /** A line a parsing Worker read, through the engine as `line` would take it, timed. */
  record(record: LineRecord, taken: TakenRecord, line: number): void {
    this.digests.use(record, taken);
    this.ingest(taken.checked, line);
  }

  /** A line the snapshot scanner read here, the same way (the engine hashes its texts). */
  snapshot(read: ReadSnapshot, line: number): void {
    this.digests.clear();
    this.ingest(read.checked, line);
  }

  private ingest(checked: TakenRecord['checked'], line: number): void {
    const t0 = performance.now();
    const outcome = this.engine.ingestValidated(checked, line);
    this.engineMs += performance.now() - t0;
    this.take(outcome);
  }

  take(outcome: Outcome): void {
    switch (outcome.kind) {
      case 'turn': {
        const r = outcome.result;
        this.lastTurn = r.turn;
        const t0 = performance.now();
        this.store(r.sessionId).record(r, outcome.snapshot);
        this.storeMs += performance.now() - t0;
        return;
      }
      case 'header': {
        const store = this.store(outcome.sessionId);
        applyHeader(store, outcome.header);
        return;
      }
      case 'error':
        this.addError(outcome.error);
        return;
      case 'ignored':
        return;
    }
  }

  /** The session's scores come from the reference scorer (contract §7): said on screen. */
  markReferenceScored(sid: string): void {
    const store = this.stores.get(sid); // a message the engine refused makes no session
    if (store !== undefined) store.referenceScored = true;
  }

  addError(error: InputError): void {
    if (!isNotARecord(error.message)) this.someRecord = true;
    this.errorAfterTurn.set(error, this.lastTurn);
    this.errors.add(error);
  }

  store(sid: string): TurnColumnStore {
    let s = this.stores.get(sid);
    if (s === undefined) {
      const th = this.engine.thresholds(sid) ?? resolveThresholds(undefined, this.userThresholds);
      s = new TurnColumnStore(sid, th, this.limits);
      this.stores.set(sid, s);
    }
    return s;
  }

  /** The listed input errors by line, and beside each the turn read last before it (the turn axis marks where lines were lost). */
  private listedErrors(): Pick<JobSummary, 'inputErrors' | 'inputErrorAfterTurn' | 'inputErrorsOmitted'> {
    const inputErrors = this.errors.listed();
    const omitted = this.errors.omitted();
    return {
      inputErrors,
      inputErrorAfterTurn: inputErrors.map((e) => this.errorAfterTurn.get(e) ?? null),
      ...(omitted === null ? {} : { inputErrorsOmitted: omitted }),
    };
  }

  summary(): JobSummary {
    return {
      sessions: [...this.stores.values()].map(sessionSummary),
      inputErrorCount: this.errors.total,
      ...this.listedErrors(),
      linesRead: this.lines,
      format: this.format,
      gzip: this.gzip,
      scorer: this.scorer,
      ...(this.adapter === undefined ? {} : { adapter: this.adapter }),
      ...(this.isNotATranscript() ? { notATranscript: notATranscriptSentence() } : {}),
    };
  }

  /** As `check` decides it (src/cli/adapterNote.ts notATranscript): no session, and every error a line of no format. */
  private isNotATranscript(): boolean {
    return this.stores.size === 0 && this.errors.total > 0 && !this.someRecord && (this.adapter === undefined || this.adapter.format === 'wire');
  }
}

function applyHeader(store: TurnColumnStore, header: SessionHeader): void {
  store.title = header.title ?? null;
  const config: Partial<Thresholds> = {};
  for (const key of THRESHOLD_KEYS) {
    const v = header.config?.[key];
    if (typeof v === 'number') config[key] = v;
  }
  store.headerConfig = config;
  // contract §7: the stream was scored by the reference before it got here (`watch`, an adapter)
  if (header.scores === 'reference') store.referenceScored = true;
  // contract §8.1: the engine decides the scope from the same header (Engine.newSlot)
  store.notApplicable = { ...notApplicable(scopeOf(header)) };
  store.agent = typeof header.source === 'string' && header.source !== '' ? header.source : null;
}

export function sessionSummary(s: TurnColumnStore): SessionSummary {
  const n = s.turnCount;
  const counts: Partial<Record<Signal, number>> = {};
  SIGNALS.forEach((sig, i) => {
    const c = s.signalCounts[i]!;
    if (c > 0) counts[sig] = c;
  });
  const lists = n > 0 ? s.verdictLists(n - 1) : null;
  const heldFrom = s.spansHeldFromIndex;
  return {
    sessionId: s.sessionId,
    title: s.title,
    turns: n,
    firstTurn: n > 0 ? s.col.turn.get(0) : null,
    lastTurn: n > 0 ? s.col.turn.get(n - 1) : null,
    signalCounts: counts,
    findings: s.findingTurn.length,
    incidents: s.incidentSignal.length,
    thresholds: s.thresholds,
    headerConfig: s.headerConfig,
    firstFault: s.firstFault === null ? null : { turn: s.col.turn.get(s.firstFault.turnIndex), signal: s.firstFault.signal },
    latest:
      n > 0 && lists !== null
        ? { turn: s.col.turn.get(n - 1), action: ACTIONS[s.col.action.get(n - 1)]!, recompute: lists.recompute.length, drop: lists.drop.length }
        : null,
    hasCanary: s.hasCanary,
    hasRewrites: s.hasRewrites,
    spansHeldFrom: heldFrom > 0 && heldFrom < n ? s.col.turn.get(heldFrom) : null,
    scores: s.referenceScored ? 'reference' : 'harness',
    hasAgreement: s.hasAgreement,
    compactions: s.compactions.length,
    compactionRevision: s.compactionRevision,
    contextWindow: s.contextWindow,
    notApplicable: s.notApplicable,
    agent: s.agent,
  };
}
