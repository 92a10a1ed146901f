// The dashboard's one door to the analysis Worker (the import rule in docs/architecture.md: app reaches the Worker only through this module).
// It numbers jobs and requests, drops every reply or event for a job that is no longer
// current, and turns queries into promises. The constants the UI needs from the engine
// (signal names, severities, thresholds) are re-exported here so the app never imports
// src/core itself.
import type { Thresholds } from '../core/config.ts';
import type { ParseChoice, QueryKind, QueryMap, QueryRequest, Request, ScorerMode, Source, WorkerEvent } from './protocol.ts';

export type * from './protocol.ts';
export type * from './compareTypes.ts';
export { counterpartIndex } from '../core/compare.ts';
export { ROW_FINDING, ROW_INCIDENT } from './protocol.ts';
export { SIGNALS, SEVERITY, SEVERITY_RANK } from '../core/signals.ts';
export { DEFAULT_THRESHOLDS, THRESHOLD_KEYS, thresholdProblem } from '../core/config.ts';

/** A reply for a job that was replaced before it arrived: callers ignore it. */
export class StaleReply extends Error {
  constructor() {
    super('stale reply');
  }
}

export interface WorkerLike {
  postMessage(message: Request, transfer?: Transferable[]): void;
  onmessage: ((ev: MessageEvent<WorkerEvent>) => void) | null;
  /** errors the Worker could not catch itself: its script failed to load, or it died */
  onerror: ((ev: ErrorEvent) => void) | null;
  terminate(): void;
}

type Listener = (event: Exclude<WorkerEvent, { type: 'reply' }>) => void;

interface Pending {
  job: number;
  resolve: (body: unknown) => void;
  reject: (e: Error) => void;
}

export class AnalysisClient {
  private readonly worker: WorkerLike;
  private jobId = 0;
  private reqId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<Listener>();

  constructor(createWorker?: () => WorkerLike) {
    this.worker = createWorker?.() ?? (new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'analysis' }) as unknown as WorkerLike);
    this.worker.onmessage = (ev) => this.receive(ev.data);
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      // the Worker cannot say so itself: the current job is over, whatever kind it was
      if (this.jobId > 0) this.receive({ type: 'failed', job: this.jobId, reason: `the analysis Worker failed: ${ev.message || 'unknown error'}` });
    };
  }

  /** The current job, 0 before the first source. */
  get job(): number {
    return this.jobId;
  }

  /**
   * Starts analysing a source; everything from the previous job is dropped from now on.
   * `pacedSummaries`: the caller says when it has drawn each summary (summaryDrawn), and
   * the Worker sends the next one only then (OpenRequest.pacedSummaries). `parse`: the
   * parsing Workers a file may use (OpenRequest.parse).
   */
  open(
    source: Source,
    userThresholds: Partial<Thresholds>,
    scorer: ScorerMode = 'auto',
    options: { pacedSummaries?: boolean; parse?: ParseChoice } = {},
  ): number {
    const job = ++this.jobId;
    for (const [req, p] of this.pending) {
      p.reject(new StaleReply());
      this.pending.delete(req);
    }
    this.worker.postMessage({
      type: 'open',
      job,
      source,
      userThresholds,
      scorer,
      ...(options.pacedSummaries === true ? { pacedSummaries: true } : {}),
      ...(options.parse === undefined ? {} : { parse: options.parse }),
    });
    return job;
  }

  /** The last summary is on screen: the Worker may send the next (a job opened with pacedSummaries). */
  summaryDrawn(): void {
    this.worker.postMessage({ type: 'summary-drawn', job: this.jobId });
  }

  cancel(): void {
    this.worker.postMessage({ type: 'cancel', job: this.jobId });
  }

  query<K extends QueryKind>(kind: K, query: QueryMap[K]['query']): Promise<QueryMap[K]['reply']> {
    const req = ++this.reqId;
    const job = this.jobId;
    return new Promise((resolve, reject) => {
      this.pending.set(req, { job, resolve: resolve as (b: unknown) => void, reject });
      const message: QueryRequest<K> = { type: 'query', job, req, kind, query };
      // TypeScript cannot see that a query of a generic kind K is a member of the union
      this.worker.postMessage(message as QueryRequest);
    });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.worker.terminate();
    this.listeners.clear();
  }

  private receive(event: WorkerEvent): void {
    if (event.type === 'reply') {
      const p = this.pending.get(event.req);
      if (p === undefined) return;
      this.pending.delete(event.req);
      if (event.job !== this.jobId || p.job !== this.jobId) return p.reject(new StaleReply());
      if (event.ok) p.resolve(event.body);
      else p.reject(new Error(event.error));
      return;
    }
    if (event.job !== this.jobId) return; // a stale event from a replaced job
    for (const l of this.listeners) l(event);
  }
}
