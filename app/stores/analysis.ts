// What the Worker has told us about the current source: load progress, connection state,
// the job summary, and the shaped data each panel draws. Server data (the relay's session
// list) is not here: it lives in TanStack Query. Bulk results arrive already shaped and
// decimated; this store only holds the latest reply for each panel.
import { create } from 'zustand';
import type {
  CompactionsView,
  ConnectionState,
  FindingsIndex,
  JobSummary,
  LoadProgress,
  LoadState,
  SeriesView,
  SessionSummary,
  SpanDetail,
  TurnDetail,
} from '../../src/worker/client.ts';

export type SourceInfo =
  /** sha256: a dropped file's, as sha256sum prints it, once the Worker has taken it after the load */
  { kind: 'file' | 'url'; name: string; bytes: number | null; sha256?: string } | { kind: 'live'; sessionId: string };

export interface LoadInfo {
  state: LoadState | 'idle';
  progress: LoadProgress | null;
  message: string | null;
}

export interface AnalysisState {
  source: SourceInfo | null;
  load: LoadInfo;
  connection: ConnectionState | null;
  /** the summary on screen (frozen while a live view is paused) */
  summary: JobSummary | null;
  /** the newest summary from the Worker */
  latestSummary: JobSummary | null;
  sessionId: string | null;
  view: SeriesView | null;
  findings: FindingsIndex | null;
  turn: TurnDetail | null;
  span: SpanDetail | null;
  /** contract §8.3: the compaction records of the session on screen */
  compactions: CompactionsView | null;
  /** a query that failed, said plainly */
  error: string | null;
}

export const initialAnalysisState: AnalysisState = {
  source: null,
  load: { state: 'idle', progress: null, message: null },
  connection: null,
  summary: null,
  latestSummary: null,
  sessionId: null,
  view: null,
  findings: null,
  turn: null,
  span: null,
  compactions: null,
  error: null,
};

/** The session shown: the one already on screen if it still exists, else the first. */
export function chooseSession(summary: JobSummary, current: string | null): string | null {
  if (current !== null && summary.sessions.some((s) => s.sessionId === current)) return current;
  return summary.sessions[0]?.sessionId ?? null;
}

export function sessionOnScreen(state: Pick<AnalysisState, 'summary' | 'sessionId'>): SessionSummary | null {
  return state.summary?.sessions.find((s) => s.sessionId === state.sessionId) ?? null;
}

/** contract §8.1: the session on screen is in the reference scope: no score detector ran (its headline is §8.9's). */
export function outOfScopeOnScreen(state: Pick<AnalysisState, 'summary' | 'sessionId'>): boolean {
  const s = sessionOnScreen(state);
  return s !== null && Object.keys(s.notApplicable).length > 0;
}

export function turnsLoaded(summary: JobSummary | null): number {
  return summary?.sessions.reduce((n, s) => n + s.turns, 0) ?? 0;
}

/** The plain sentence of contract §6 load-status: how many turns loaded, how many input errors. */
export function loadStatusText(source: SourceInfo | null, load: LoadInfo, summary: JobSummary | null): string {
  const turns = turnsLoaded(summary);
  const errors = summary?.inputErrorCount ?? 0;
  const sessions = summary?.sessions.length ?? 0;
  const name = source !== null && source.kind !== 'live' ? `${source.name}: ` : '';
  const counts = `${turns} turn${turns === 1 ? '' : 's'} loaded${sessions > 1 ? ` in ${sessions} sessions` : ''}, ${errors} input error${errors === 1 ? '' : 's'}${adapterNote(summary)}${scoresNote(summary)}`;
  switch (load.state) {
    case 'done':
      // docs/adapters.md "Telling the format": the one sentence `check` gives, not a count of errors
      if (turns === 0 && summary?.notATranscript !== undefined) return `${name}${summary.notATranscript}`;
      return turns === 0 ? `${name}${counts}: no valid snapshot in this file` : `${name}${counts}`;
    case 'cancelled':
      return `${name}cancelled: ${counts} before stopping`;
    case 'failed':
      return `${name}${counts}; ${load.message ?? 'reading failed'}`;
    default:
      return `${name}${counts}`;
  }
}

/**
 * contract §7: where the scores came from, said whenever they are not simply the harness's
 * own under the default (so a native transcript's sentence is as it always was).
 */
export function scoresNote(summary: JobSummary | null): string {
  const sessions = summary?.sessions ?? [];
  if (summary === null || sessions.length === 0) return '';
  const byReference = sessions.filter((s) => s.scores === 'reference').length;
  const agreement = sessions.some((s) => s.hasAgreement) ? ', compared with the reference (BM25)' : '';
  if (byReference === sessions.length) return '; scores: reference (BM25)';
  if (byReference > 0) return `; scores: reference (BM25) in ${byReference} of ${sessions.length} sessions, the harness's in the rest${agreement}`;
  return summary.scorer === 'auto' ? '' : `; scores: the harness's${agreement}`;
}

/** docs/adapters.md: another agent's transcript says so, and lists every record it left out by kind. */
function adapterNote(summary: JobSummary | null): string {
  const adapter = summary?.adapter;
  if (adapter === undefined) return '';
  const name =
    adapter.format === 'claude-code'
      ? 'Claude Code'
      : adapter.format === 'swe-agent'
        ? 'SWE-agent'
        : adapter.format === 'codex'
          ? 'Codex CLI'
          : adapter.format === 'gemini'
            ? 'Gemini CLI'
            : adapter.format === 'openhands'
              ? 'OpenHands'
              : adapter.format;
  const skipped = Object.entries(adapter.skipped).map(([kind, n]) => `${n} ${kind}`);
  return ` (${name} transcript; records not mapped: ${skipped.length === 0 ? 'none' : skipped.join(', ')})`;
}

export const useAnalysis = create<AnalysisState>()(() => ({ ...initialAnalysisState }));
