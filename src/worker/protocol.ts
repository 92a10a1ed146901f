// The typed messages between the dashboard (main thread) and the analysis Worker.
// Requests carry the job id they were made for; every reply and event carries the job
// it belongs to, and the client drops anything for a job that is no longer current
// (docs/architecture.md "Worker messages"). Bulk numbers travel as typed arrays in the transfer list.
import type { InputError } from '../core/engine.ts';
import type { OmittedInputErrors } from '../core/inputErrorList.ts';
import type { Thresholds } from '../core/config.ts';
import type { Action, Severity, Signal } from '../core/signals.ts';
import type { ReportData } from '../report/markdown.ts';
import type { ReportQuery } from '../report/reportData.ts';
import type { Bands, BindingName, FindingsIndex, SeriesView, TurnMetricsView, ViewQuery } from '../results/series.ts';
import type { ScorerMode } from '../ingest/adapters/scoringStage.ts';
import type { Comparison, CompareQuery, OutlineWire } from './compareTypes.ts';
import type { CompactionRecord, KindRetention, RecordItem } from '../core/compactions.ts';
import type { AuditItemKind, AuditStatus, CarriedItem } from '../core/compactionAudit.ts';
import type { ContextWindow } from '../core/composition.ts';

export type { InputError, Thresholds, Action, Severity, Signal, ScorerMode, ContextWindow };
export type { CompactionRecord, KindRetention, RecordItem, AuditItemKind, AuditStatus, CarriedItem, ReportQuery };
// the shaped series and the findings index are the results model's (src/results/series.ts)
export type {
  Bands,
  BindingName,
  CanaryLine,
  CanarySeries,
  CompositionBand,
  CompositionSeries,
  DriftSeries,
  FindingsIndex,
  OrphanSeries,
  SeriesView,
  SpreadSeries,
  TurnMetricsView,
  ViewQuery,
} from '../results/series.ts';
export { ROW_FINDING, ROW_INCIDENT } from '../results/series.ts';

// ------------------------------------------------------------------ sources

export type Source =
  { kind: 'file'; file: File; name: string } | { kind: 'url'; url: string; name: string } | { kind: 'live'; wsUrl: string; sessionId: string };

// ------------------------------------------------------------------ requests

export interface OpenRequest {
  type: 'open';
  job: number;
  source: Source;
  /** thresholds set by the user in the settings: they override each session header's config */
  userThresholds: Partial<Thresholds>;
  /** whose scores the engine sees, as `check --scorer` (contract §7); default auto */
  scorer?: ScorerMode;
  /**
   * Summaries are paced by the page: after a `summary` event the next one waits for a
   * `summary-drawn` request (besides the usual interval), so a page that is slow to draw
   * never has summaries queued up behind its work (docs/perf-log/notebook.md). Without it the
   * Worker sends one every interval.
   */
  pacedSummaries?: boolean;
  /**
   * Parsing Workers for a file or URL (docs/dashboard.md "Parsing Workers"): how many, and the
   * smallest file (bytes as stored) worth starting them for. Without it, with 0 Workers, for a
   * smaller file, or with a scorer that rewrites lines (reference, both), the analysis Worker
   * parses every line itself.
   */
  parse?: ParseChoice;
}

export interface ParseChoice {
  workers: number;
  /** 0: whatever the source's size, a URL's too */
  minBytes: number;
  /** every batch a Worker has room for goes to it, however late it comes back (`?parse=N&share=all`: tests, benches) */
  fixedShare?: boolean;
}

/** The page has drawn the last summary: the Worker may send the next (OpenRequest.pacedSummaries). */
export interface SummaryDrawnRequest {
  type: 'summary-drawn';
  job: number;
}

export interface CancelRequest {
  type: 'cancel';
  job: number;
}

export interface TurnQuery {
  sessionId: string;
  turn: number;
  /** lay out the lineage graph (skipped while a live session is followed: it is not drawn then) */
  graph: boolean;
}

export interface SpanQuery {
  sessionId: string;
  turn: number;
  spanId: string;
}

export interface FindingDetailsQuery {
  sessionId: string;
  /** finding indices (FindingsIndex.rowRef of finding rows) */
  indices: number[];
}

export interface QueryMap {
  view: { query: ViewQuery; reply: SeriesView };
  findings: { query: { sessionId: string }; reply: FindingsIndex };
  findingDetails: { query: FindingDetailsQuery; reply: FindingDetail[] };
  turn: { query: TurnQuery; reply: TurnDetail | null };
  span: { query: SpanQuery; reply: SpanDetail | null };
  /** comparing two sessions (compareQuery.ts): B's Worker sends its outline, A's compares */
  outline: { query: { sessionId: string }; reply: OutlineWire };
  compare: { query: CompareQuery; reply: Comparison };
  /** the data of an incident report (src/report/reportData.ts, src/report/markdown.ts) */
  report: { query: ReportQuery; reply: ReportData };
  /** contract §8.3: the session's compaction records, as they stand now */
  compactions: { query: { sessionId: string }; reply: CompactionsView };
}
export type QueryKind = keyof QueryMap;

/** A query of one kind: its `query` is the one that kind takes. */
export interface QueryRequestOf<K extends QueryKind> {
  type: 'query';
  job: number;
  req: number;
  kind: K;
  query: QueryMap[K]['query'];
}

/**
 * The queries of kinds K (every kind by default) as one union discriminated by `kind`, so
 * a switch on it narrows `query`; generic over K so a caller can build one of kind K.
 */
export type QueryRequest<K extends QueryKind = QueryKind> = { [P in K]: QueryRequestOf<P> }[K];

export type Request = OpenRequest | CancelRequest | SummaryDrawnRequest | QueryRequest;

// ------------------------------------------------------------------ events and replies

export type LoadState = 'reading' | 'done' | 'cancelled' | 'failed';

export interface LoadProgress {
  /** where the Worker's time went (ms): parse + engine, and recording results into the store */
  engineMs?: number;
  storeMs?: number;
  decodeMs?: number;
  /** the Workers that parsed the lines besides the analysis Worker (OpenRequest.parse); 0: it parsed them all */
  parseWorkers?: number;
  /** whether they were started: a judged share starts them only once the scanner declines lines (ThreadShare.noteHere) */
  parseWorkersStarted?: boolean;
  bytesRead: number;
  /** null when unknown (a download without Content-Length) */
  bytesTotal: number | null;
  elapsedMs: number;
}

export type ConnectionState =
  | { state: 'connecting'; attempt: number }
  | { state: 'catching-up'; since: number; lastSeq: number; received: number }
  | { state: 'live'; lastSeq: number }
  | { state: 'reconnecting'; attempt: number; inMs: number; reason: string; lastSeq: number }
  | { state: 'closed'; reason: string }
  /** the Worker hit an error it could not recover from: the analysis stopped (issue 8: never 'live' then) */
  | { state: 'failed'; reason: string };

export interface SessionSummary {
  sessionId: string;
  title: string | null;
  /** number of analysed snapshots */
  turns: number;
  firstTurn: number | null;
  lastTurn: number | null;
  /** contract §6 signal-count: turns on which each signal fired */
  signalCounts: Partial<Record<Signal, number>>;
  findings: number;
  incidents: number;
  /** the thresholds in force, and where the header set some */
  thresholds: Thresholds;
  headerConfig: Partial<Thresholds>;
  firstFault: { turn: number; signal: Signal } | null;
  latest: { turn: number; action: Action; recompute: number; drop: number } | null;
  /** some turn had a pinned span with a finite score */
  hasCanary: boolean;
  /** some turn was a rewrite turn (spans_modified > 0 or texts changed) */
  hasRewrites: boolean;
  /** turns before this one no longer have per-span rows in memory (bounded store) */
  spansHeldFrom: number | null;
  /** contract §7: where the scores came from: the harness's own, or the reference scorer (BM25) */
  scores: 'harness' | 'reference';
  /** some snapshot carried reference_agreement (`both`): the agreement series is drawn */
  hasAgreement: boolean;
  /** contract §8.3: compactions recorded so far */
  compactions: number;
  /**
   * Bumped whenever a compaction record is added or a later turn updates one (a refetch, a
   * confirmed loss): the page asks for the records again only when it changed.
   */
  compactionRevision: number;
  /** contract §8.7: the session's context window, where it came from (null: none known) */
  contextWindow: ContextWindow | null;
  /** contract §8.1: the signals not evaluated for this session's scope, each with its reason (empty: every detector runs) */
  notApplicable: Partial<Record<Signal, string>>;
  /** the header's `source` (claude-code, codex, …): the agent an adapter read; null for a native session */
  agent: string | null;
}

export interface JobSummary {
  sessions: SessionSummary[];
  inputErrorCount: number;
  /** the first input errors (at most 1,000, contract §2.5), in line order */
  inputErrors: InputError[];
  /** the errors past those, counted by reason; absent when every error is listed */
  inputErrorsOmitted?: OmittedInputErrors;
  /** for each of `inputErrors`, the turn of the last snapshot read before it (null: before any) */
  inputErrorAfterTurn?: (number | null)[];
  linesRead: number;
  format: 'jsonl' | 'json-array' | 'unknown' | 'live';
  gzip: boolean;
  /** the scorer mode the source was read with (contract §7, as `check --scorer`) */
  scorer: ScorerMode;
  /** another agent's transcript (docs/adapters.md): its format and the records left out, by kind */
  adapter?: { format: 'wire' | 'claude-code' | 'swe-agent' | 'codex' | 'gemini' | 'openhands'; skipped: Record<string, number> };
  /** docs/adapters.md "Telling the format": a file of no format this reads gets this one sentence, as `check` says it */
  notATranscript?: string;
}

export type WorkerEvent =
  | { type: 'progress'; job: number; progress: LoadProgress }
  | { type: 'summary'; job: number; summary: JobSummary }
  | { type: 'done'; job: number; state: LoadState; message: string | null; progress: LoadProgress; summary: JobSummary }
  | { type: 'connection'; job: number; connection: ConnectionState }
  /** a dropped file's sha256 as stored (sha256sum's), sent after 'done' (fileDigest.ts) */
  | { type: 'digest'; job: number; sha256: string }
  /** the Worker itself failed (its script, or an error nothing inside it caught): the job is over */
  | { type: 'failed'; job: number; reason: string }
  | { type: 'reply'; job: number; req: number; ok: true; body: unknown }
  | { type: 'reply'; job: number; req: number; ok: false; error: string };

/** contract §8.3: one session's compactions, in turn order (CompactionRecord is the `check --json` shape). */
export interface CompactionsView {
  sessionId: string;
  /** SessionSummary.compactionRevision these records are at */
  revision: number;
  records: CompactionRecord[];
  /** contract §8.8 the labels of the spans the records' items name */
  labels: SpanLabels;
}

/** contract §8.8: span id → label, for the spans a reply names that have one (the page shows the label, keeps the id on hover). */
export type SpanLabels = Record<string, string>;

export interface FindingDetail {
  index: number;
  turn: number;
  signal: Signal;
  severity: Severity;
  message: string;
  spanIds: string[];
  /** contract §8.8 the labels of spanIds (those that have one) */
  labels: SpanLabels;
}

export interface SpanRow {
  spanId: string;
  label: string | null;
  /** contract §8.7 the kind tokens_by_kind files it under */
  kind: string;
  score: number | null;
  binding: BindingName;
  rewrites: number;
  tokens: number;
  pinned: boolean;
  textChanged: boolean;
}

export interface GraphNode {
  id: string;
  /** contract §8.8 drawn instead of the id when the span has one */
  label: string | null;
  /** ghost: a missing parent (orphaned_parent); archived: a parent gone from the live context that the session declared archived (contract §8.2) */
  kind: 'live' | 'citer' | 'ghost' | 'archived';
  x: number;
  y: number;
  width: number;
  height: number;
  pinned: boolean;
  binding: BindingName | null;
  /** for ghosts: whether the missing parent was seen pruned at or before this turn */
  prunedEarlier: boolean;
  /** a node standing for this many archived parents of one span (lineage.ts MAX_ARCHIVED_SHOWN), not a span: not selectable */
  members?: number;
}

export interface GraphEdge {
  source: string;
  target: string;
  missing: boolean;
  /** the parent is not live but declared archived (contract §8.2): not missing */
  archived: boolean;
}

export interface LineageGraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** live spans with no derived_from edge at all, left out of the drawing */
  isolated: number;
  /** nodes left out to keep the drawing legible */
  omitted: number;
}

export interface TurnDetail {
  sessionId: string;
  turn: number;
  index: number;
  prevTurn: number | null;
  nextTurn: number | null;
  metrics: TurnMetricsView;
  action: Action;
  prune_safe: boolean;
  recompute: string[];
  drop: string[];
  findings: FindingDetail[];
  /** null when this turn's per-span rows were evicted from the bounded store */
  spans: SpanRow[] | null;
  graph: LineageGraphData | null;
  /** contract §8.7 what fills this turn's context, largest kind first */
  composition: { kind: string; label: string; tokens: number }[];
  /** the turn's largest spans (null when its rows are no longer held) */
  largest: SpanRow[] | null;
  contextWindow: ContextWindow | null;
  /** contract §8.8 the labels of the spans recompute, drop and the findings name */
  labels: SpanLabels;
}

export type DiffOp = { op: 'same' | 'add' | 'del'; text: string };

export interface SpanVersion {
  fromTurn: number;
  toTurn: number;
  sha256: string | null;
}

export interface SpanDetail {
  sessionId: string;
  spanId: string;
  label: string | null;
  turn: number;
  /** false when the span is not live at this turn (the fields then describe its nearest turn) */
  live: boolean;
  shownTurn: number;
  text: string | null;
  /** true when the text of that turn is no longer held (bounded memory) */
  textEvicted: boolean;
  score: number | null;
  binding: BindingName;
  claimedSha256: string | null;
  computedSha256: string | null;
  rewrites: number;
  tokens: number;
  pinned: boolean;
  role: string | null;
  derivedFrom: string[];
  missingParents: string[];
  /** parents gone from the live context that the session declared archived (contract §8.2): not missing */
  archivedParents: string[];
  children: string[];
  firstSeen: number;
  lastSeen: number;
  prunedAt: number | null;
  /** score per turn where the span was live, decimated */
  historyX: Float64Array;
  historyScore: Float64Array;
  historyRewrites: Float64Array;
  /** turns where the binding was not `bound`, as bands */
  badBinding: Bands;
  textVersions: SpanVersion[];
  /** diff of this turn's text against the span's text at the previous turn it was live */
  diffAgainst: number | null;
  diff: DiffOp[] | null;
  historyFrom: number | null;
  /** contract §8.8 the labels of the spans its lineage names */
  labels: SpanLabels;
}
