// One analysis job at a time (job.ts): a file, a fetched sample or a live relay session, run
// through one Engine into per-session stores. A new `open` ends the previous job; queries
// are answered from the current job's stores. Events are throttled so the main thread
// hears about progress a few times a second, never per snapshot.
import { relayInputErrors } from './relayInputErrors.ts';
import type { Sha256Hex } from '../core/analyse.ts';
import { Job } from './job.ts';
import { compareWith, outlineTransferables, outlineWire } from './compareQuery.ts';
import { findingDetail, spanDetail, turnDetail } from './details.ts';
import { DecompressedSizeLimit } from './fileSource.ts';
import { digestBlob } from './fileDigest.ts';
import { DEFAULT_READ_LIMITS, feedHere, type FeedSink, type FeedSource, type ReadLimits } from './lineFeed.ts';
import { LiveSubscription, type SocketLike } from './liveSource.ts';
import { ParsePool, ParseWorkerFailure, type PoolWorker } from './parsePool.ts';
import type { ConnectionState, LoadState, OpenRequest, ParseChoice, QueryRequest, Request, Source, WorkerEvent } from './protocol.ts';
import { DEFAULT_STORE_LIMITS, type StoreLimits, type TurnColumnStore } from '../results/store.ts';
import { findingsIndex, shapeView, transferables } from '../results/shape.ts';
import { reportData } from '../report/reportData.ts';
import type { CompactionsView } from './protocol.ts';

export type Post = (event: WorkerEvent, transfer?: Transferable[]) => void;

export interface ControllerOptions {
  sha256: Sha256Hex;
  post: Post;
  limits?: StoreLimits;
  /** caps on what reading a file may cost (tests set small ones) */
  readLimits?: ReadLimits;
  /** ms between summary events while data arrives */
  summaryEveryMs?: number;
  createSocket?: (url: string) => SocketLike;
  /** starts a parsing Worker (OpenRequest.parse); without it every line is parsed here */
  parseWorker?: () => PoolWorker;
  /** bytes of lines per batch posted to a parsing Worker (tests choose tiny ones; default pooledLines.ts's) */
  parseBatchBytes?: number;
  /** tests: the parsing Workers get every batch they have room for, late or not (src/ingest/threadShare.ts) */
  parseFixedShare?: boolean;
  /** tests: false reads every line the ordinary way (decoded, parsed, validated here), the scanner's reference */
  scan?: boolean;
}

export class Controller {
  private job: Job | null = null;
  private summaryTimer: ReturnType<typeof setTimeout> | null = null;
  private lastProgressAt = 0;
  /** kept from load to load (a Worker takes a while to start), until one fails or another size is asked for */
  private pool: ParsePool | null = null;

  constructor(private readonly o: ControllerOptions) {}

  /** The parsing Workers for this load, if it is to have any (OpenRequest.parse). */
  private poolFor(choice: ParseChoice | undefined, source: Source): ParsePool | null {
    const create = this.o.parseWorker;
    if (create === undefined || choice === undefined || choice.workers < 1) return null;
    const bytes = source.kind === 'file' ? source.file.size : null;
    if (choice.minBytes > 0 && (bytes === null || bytes < choice.minBytes)) return null;
    if (this.pool !== null && (this.pool.size !== choice.workers || this.pool.failed !== null)) {
      this.pool.close();
      this.pool = null;
    }
    return (this.pool ??= new ParsePool(Math.floor(choice.workers), create));
  }

  handle(req: Request): void {
    switch (req.type) {
      case 'open':
        this.open(req).catch((e: unknown) => this.fail(e));
        return;
      case 'cancel':
        if (this.job?.id === req.job) this.stopJob(this.job, 'cancelled by you');
        return;
      case 'summary-drawn': {
        const job = this.job;
        if (job === null || job.id !== req.job || !job.awaitingDrawn) return;
        job.awaitingDrawn = false;
        if (job.summaryDue) {
          job.summaryDue = false;
          this.scheduleSummary(job);
        }
        return;
      }
      case 'query':
        this.query(req);
        return;
    }
  }

  /** The current job's stores, for tests. */
  get stores(): ReadonlyMap<string, TurnColumnStore> {
    return this.job?.stores ?? new Map();
  }

  /**
   * An error nothing else caught (the Worker entry routes its global error events here).
   * The current job's results can no longer be trusted to grow: it is stopped, and the
   * screen is told why, so a live session never keeps showing 'Live' over a dead analysis.
   */
  fail(error: unknown): void {
    const job = this.job;
    if (job === null || job.failure !== null) return;
    const reason = `the analysis stopped: ${errorText(error)}`;
    job.failure = reason;
    if (job.live !== null) {
      this.stopJob(job, reason);
      this.clearSummaryTimer();
      this.o.post({ type: 'connection', job: job.id, connection: { state: 'failed', reason } });
      return;
    }
    // a file still reading ends as failed (open() reads job.failure); a finished one keeps its results
    if (!job.finished) this.stopJob(job, reason);
  }

  private stopJob(job: Job, reason: string): void {
    job.abort.abort(reason);
    job.live?.stop(reason);
  }

  private async open(req: OpenRequest): Promise<void> {
    if (this.job !== null) this.stopJob(this.job, 'replaced by a new source');
    const job = new Job(req.job, req.source, req.userThresholds, req.scorer ?? 'auto', this.o.sha256, this.o.limits ?? DEFAULT_STORE_LIMITS);
    this.job = job;
    job.paced = req.pacedSummaries === true;
    if (req.source.kind === 'live') return this.openLive(job, req.source.wsUrl);
    let state: LoadState = 'done';
    let message: string | null = null;
    const source: FeedSource = req.source.kind === 'file' ? { kind: 'file', file: req.source.file } : { kind: 'url', url: req.source.url };
    const sink: FeedSink = {
      line: (text, lineNo) => {
        job.lines = lineNo;
        if (text === '') return; // the engine ignores blank lines: skip its timing too
        try {
          job.line(text, lineNo);
        } catch (e) {
          throw new AnalysisFailure(`line ${lineNo}`, e);
        }
      },
      value: (value, lineNo, noSurrogateEscape, adapted) => {
        job.lines = lineNo;
        // another agent's transcript: no turn of it comes again, so no replay fingerprint is kept (as check does)
        if (adapted && job.engine.sessionCount === 0) job.engine.forgoReplays();
        const outcome = job.engine.ingestParsedLine(value, lineNo, noSurrogateEscape);
        if (outcome.kind === 'turn') job.disagreement.observe(outcome, job.engine.thresholds(outcome.result.sessionId));
        job.take(outcome);
      },
      error: (lineNo, msg) => job.addError({ line: lineNo, message: msg }),
      progress: (bytesRead, bytesTotal) => this.progress(job, bytesRead, bytesTotal),
      record: (record, taken, lineNo) => {
        job.lines = lineNo;
        try {
          job.record(record, taken, lineNo);
        } catch (e) {
          throw new AnalysisFailure(`line ${lineNo}`, e);
        }
      },
      snapshot: (read, lineNo) => {
        job.lines = lineNo;
        try {
          job.snapshot(read, lineNo);
        } catch (e) {
          throw new AnalysisFailure(`line ${lineNo}`, e);
        }
      },
    };
    const pool = this.poolFor(req.parse, req.source);
    try {
      const res = await feedHere(
        source,
        job.abort.signal,
        sink,
        this.o.readLimits ?? DEFAULT_READ_LIMITS,
        this.o.sha256,
        { mode: job.scorer, onReferenceScored: (sid) => job.markReferenceScored(sid) },
        // with no pool too: the analysis Worker then reads every batch itself, with the scanner
        this.o.scan === false
          ? undefined
          : {
              pool,
              ...(this.o.parseBatchBytes === undefined ? {} : { batchBytes: this.o.parseBatchBytes }),
              ...(this.o.parseFixedShare === true || req.parse?.fixedShare === true ? { fixedShare: true } : {}),
            },
      );
      job.gzip = res.gzip;
      job.format = res.format;
      job.decodeMs = res.decodeMs;
      job.lines = Math.max(job.lines, res.lines);
      if (res.adapter.format !== 'wire') job.adapter = res.adapter;
      if (job.failure !== null) {
        state = 'failed';
        message = job.failure;
      } else if (res.aborted) {
        state = 'cancelled';
        message = String(job.abort.signal.reason ?? 'cancelled');
      }
    } catch (e) {
      state = 'failed';
      message = job.failure ?? describeReadError(e, job);
    }
    job.progress.elapsedMs = performance.now() - job.started;
    job.progress.engineMs = Math.round(job.engineMs);
    job.progress.storeMs = Math.round(job.storeMs);
    job.progress.decodeMs = Math.round(job.decodeMs);
    job.progress.parseWorkers = pool?.size ?? 0;
    job.progress.parseWorkersStarted = pool?.started ?? false;
    job.finished = true;
    if (this.job !== job) return;
    this.clearSummaryTimer();
    this.o.post({ type: 'done', job: job.id, state, message, progress: { ...job.progress }, summary: job.summary() });
    if (req.source.kind === 'file') void this.digest(job, req.source.file);
  }

  /** After the load, so the first charts never wait for it: a link names a file by it. */
  private async digest(job: Job, file: Blob): Promise<void> {
    try {
      const sha256 = await digestBlob(file, job.abort.signal);
      if (sha256 !== null && this.job === job) this.o.post({ type: 'digest', job: job.id, sha256 });
    } catch (e) {
      // the file could not be read again (removed from disk since): the link cannot name it, nothing else is lost
      console.warn('sha256 of the file:', e);
    }
  }

  private openLive(job: Job, wsUrl: string): void {
    job.format = 'live';
    const live = new LiveSubscription({
      url: wsUrl,
      since: 0,
      createSocket: this.o.createSocket,
      onMessage: (seq, data) => {
        job.lines = seq;
        try {
          job.take(job.engine.ingestValue(data, seq));
          for (const e of relayInputErrors(data, seq)) job.addError(e);
        } catch (e) {
          // the engine's state after a throw is unknown: stop rather than analyse on top of it
          this.fail(new AnalysisFailure(`message ${seq}`, e));
          return;
        }
        this.scheduleSummary(job);
      },
      onBadFrame: (seq, message) => {
        job.addError({ line: seq, message });
        this.scheduleSummary(job);
      },
      onState: (connection: ConnectionState) => {
        if (this.job !== job || job.failure !== null) return;
        if (connection.state === 'live') this.flushSummary(job);
        this.o.post({ type: 'connection', job: job.id, connection });
      },
    });
    job.live = live;
    live.start();
  }

  private progress(job: Job, bytesRead: number, bytesTotal: number | null): void {
    job.progress = { bytesRead, bytesTotal, elapsedMs: performance.now() - job.started };
    const now = performance.now();
    if (now - this.lastProgressAt >= 250) {
      this.lastProgressAt = now;
      this.o.post({ type: 'progress', job: job.id, progress: { ...job.progress } });
    }
    this.scheduleSummary(job);
    // a read whose chunks are all queued gives a timer no turn (Chromium ran the yields' message
    // tasks first): the summary due is sent from here, or the first charts would wait for the end
    if (this.summaryTimer !== null && now >= this.summaryDueAt && this.job === job && !job.finished) this.flushSummary(job);
  }

  /** when the pending summary timer is due */
  private summaryDueAt = 0;

  private scheduleSummary(job: Job): void {
    if (this.summaryTimer !== null || this.job !== job) return;
    if (job.awaitingDrawn) {
      job.summaryDue = true;
      return;
    }
    const every = this.o.summaryEveryMs ?? (job.source.kind === 'live' ? 500 : 1000);
    // paced: the interval counts from the last summary sent, not from when the page drew it;
    // the first with a turn goes at once (a summary sent before any turn was read made the
    // first charts of a 1.3 s load wait an interval, to its end)
    const first = !job.turnsSent && job.lastTurn !== null;
    const delay = first ? 0 : job.paced ? Math.max(0, job.lastSummaryAt + every - performance.now()) : every;
    this.summaryDueAt = performance.now() + delay;
    this.summaryTimer = setTimeout(() => {
      this.summaryTimer = null;
      if (this.job === job && !job.finished) this.postSummary(job);
    }, delay);
  }

  private flushSummary(job: Job): void {
    this.clearSummaryTimer();
    this.postSummary(job);
  }

  private postSummary(job: Job): void {
    job.summaryDue = false;
    if (job.paced) job.awaitingDrawn = true;
    job.lastSummaryAt = performance.now();
    job.turnsSent ||= job.lastTurn !== null;
    this.o.post({ type: 'summary', job: job.id, summary: job.summary() });
  }

  private clearSummaryTimer(): void {
    if (this.summaryTimer !== null) clearTimeout(this.summaryTimer);
    this.summaryTimer = null;
  }

  private query(req: QueryRequest): void {
    const job = this.job;
    if (job === null || job.id !== req.job) {
      this.o.post({ type: 'reply', job: req.job, req: req.req, ok: false, error: 'stale job' });
      return;
    }
    try {
      const { body, transfer } = this.answer(job, req);
      this.o.post({ type: 'reply', job: req.job, req: req.req, ok: true, body }, transfer);
    } catch (e) {
      this.o.post({ type: 'reply', job: req.job, req: req.req, ok: false, error: e instanceof Error ? e.message : String(e) });
    }
  }

  private answer(job: Job, req: QueryRequest): { body: unknown; transfer: Transferable[] } {
    const store = job.stores.get(req.query.sessionId);
    if (store === undefined) throw new Error(`no session ${JSON.stringify(req.query.sessionId)} in this source`);
    switch (req.kind) {
      case 'view': {
        const view = shapeView(store, req.query);
        return { body: view, transfer: transferables(view) };
      }
      case 'findings': {
        const index = findingsIndex(store);
        return { body: index, transfer: transferables(index) };
      }
      case 'findingDetails': {
        const { indices } = req.query;
        return { body: indices.filter((i) => i >= 0 && i < store.findingTurn.length).map((i) => findingDetail(store, i)), transfer: [] };
      }
      case 'turn': {
        const { turn, graph } = req.query;
        return { body: turnDetail(store, turn, graph), transfer: [] };
      }
      case 'span': {
        const { turn, spanId } = req.query;
        return { body: spanDetail(store, turn, spanId, this.o.sha256), transfer: [] };
      }
      case 'outline': {
        const outline = outlineWire(store);
        return { body: outline, transfer: outlineTransferables(outline) };
      }
      case 'compare':
        return { body: compareWith(store, req.query), transfer: [] };
      case 'report':
        return { body: reportData(store, req.query), transfer: [] };
      case 'compactions':
        return { body: compactionsView(store), transfer: [] };
    }
  }
}

/** contract §8.3 the records as they stand, with the labels of the spans their items name (§8.8). */
function compactionsView(store: TurnColumnStore): CompactionsView {
  const ids = new Set<string>();
  for (const r of store.compactions) {
    for (const it of r.items) if (it.span_id !== null) ids.add(it.span_id);
    for (const it of r.carried) if (it.span_id !== null) ids.add(it.span_id);
  }
  return { sessionId: store.sessionId, revision: store.compactionRevision, records: store.compactions, labels: store.labelsOfIds(ids) };
}

/** An error thrown while analysing one message (not while reading): says which. */
class AnalysisFailure extends Error {
  constructor(where: string, cause: unknown) {
    super(`at ${where}: ${errorText(cause)}`);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function describeReadError(e: unknown, job: Job): string {
  if (e instanceof DecompressedSizeLimit) return e.message;
  if (e instanceof AnalysisFailure) return `the analysis stopped ${e.message}; everything before that point was analysed`;
  // the lines are taken in in file order: what was analysed is every line up to the last one taken in
  if (e instanceof ParseWorkerFailure)
    return `the load stopped after line ${job.lines}: ${e.message}, and the lines after it were not read; everything up to it was analysed`;
  const detail = e instanceof Error ? e.message : String(e);
  const where = `after ${(job.progress.bytesRead / 1e6).toFixed(1)} MB`;
  if (job.gzip || /gzip|decompress|incorrect header|invalid/i.test(detail)) {
    return `the file stopped decompressing ${where} (${detail}); everything before that point was analysed`;
  }
  return `reading stopped ${where}: ${detail}; everything before that point was analysed`;
}
