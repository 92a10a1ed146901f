// What `context-health report` (src/cli/report.ts, Node) asks of the report renderer
// (src/render, which runs the dashboard's chart components under Node): the contract
// between the two, in types only. The CLI loads the renderer at run time, so the Node
// project's type check does not pull in the app (tsconfig.render.json checks the renderer).
import type { Thresholds } from '../core/config.ts';
import type { Outcome } from '../core/engine.ts';
import type { ReportData } from './markdown.ts';
import type { StampSource } from './stamp.ts';

export interface ReportJob {
  scope: ReportData['scope'];
  format: 'md' | 'html';
  /** the stamp's and report's export time (UTC ISO), or null: reproducible bytes */
  exportedAt: string | null;
  source: StampSource;
  /** the session to report on; default the first with a snapshot */
  sessionId: string | null;
  userThresholds: Partial<Thresholds>;
  /** where the report's links to the contract point (the CLI: docs/contract.md relative to the output folder) */
  contractUrl: string;
  /** the folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf (assets/fonts) */
  fontDir: string;
  /** `report --compaction N`: the turn of the compaction (contract §8.3) the report is about */
  compactionTurn?: number;
}

export interface ReportFile {
  /** path relative to the output folder */
  name: string;
  /** the file's bytes, or its pieces in order (report.md, report.html: never one string, issue 39 "Output streams") */
  bytes: Uint8Array | Uint8Array[];
}

/** Every buffer a file holds, to transfer (not copy) across threads. */
export function fileBuffers(files: readonly ReportFile[]): ArrayBuffer[] {
  return [...new Set(files.flatMap((f) => (Array.isArray(f.bytes) ? f.bytes : [f.bytes])).map((b) => b.buffer as ArrayBuffer))];
}

/** Takes the engine's outcomes as `check` reads the file. */
export interface OutcomeSink {
  take(outcome: Outcome): void;
}

/**
 * What the drawing side needs, made by `ReportRenderer.analyse`: the chart view, the report's
 * data and the stamp, all structured-cloneable (it crosses to a worker thread). Opaque here:
 * its shape is the renderer's (src/render/draw.ts), whose types the Node project does not check.
 */
export interface DrawInput {
  readonly kind: 'draw-input';
}

/**
 * Asked of the sink by `report`: call `onSettled` (once, from inside `take`) as soon as the
 * turns the charts show are final, while the rest of the file is still being read, so the
 * charts can be drawn then (docs/reports.md, "Speed").
 */
export interface SettledWatch {
  /** the session the report is about (`--session`), or null: the first with a snapshot */
  sessionId: string | null;
  onSettled: () => void;
}

export interface ReportRenderer {
  /**
   * `scope`, when given, lets the sink keep span rows only where the report can quote them;
   * `settled`, when given, is told when the charts' turns are final (--incident N, --turns A..B)
   */
  sink(userThresholds: Partial<Thresholds>, scope?: ReportJob['scope'], settled?: SettledWatch): OutcomeSink;
  /** what the report says and what its charts show; throws with a sentence when the session or scope does not exist */
  analyse(sink: OutcomeSink, job: ReportJob): { data: ReportData; draw: DrawInput };
}

/**
 * The drawing side: React, Recharts, happy-dom, the chart modules and resvg. `report` starts
 * it first, on a worker thread, so loading all that overlaps reading the file (docs/reports.md,
 * "Speed").
 */
export interface ReportDrawer {
  /**
   * Starts drawing the charts of an input made while the file was still being read (its
   * source's sha256 may be null: the drawing side fills in the one it hashes). `draw` uses
   * these charts when its own input shows exactly the same ones, else draws afresh.
   */
  early(input: DrawInput): void;
  /** the report's files (report.md + images, or report.html) */
  draw(input: DrawInput): Promise<ReportFile[]>;
  /** the file's sha256 (hex), read off the CLI's thread: on the drawing thread once it has loaded, while the CLI's thread still reads the file */
  sha256(file: string): Promise<string>;
  /** ends the worker thread, if any (also when nothing was drawn) */
  close(): Promise<void>;
}

/** What the CLI's thread posts to the drawing thread. */
export type DrawRequest = { kind: 'sha256'; file: string } | { kind: 'early'; input: DrawInput } | DrawInput;

/**
 * What the drawing thread posts back: a file's sha256, the files (their buffers transferred),
 * why it could not, or `redo`: it drew early charts that are not this input's, so its id
 * counters (React's, Recharts') have moved on and a fresh thread must draw it.
 */
export type DrawReply =
  { kind: 'sha256'; sha256: string } | { kind: 'files'; files: ReportFile[] } | { kind: 'files'; redo: true } | { kind: 'sha256' | 'files'; error: string };
