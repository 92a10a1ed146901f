// `check` over many files, the human output (docs/contract.md §6.1 "Many files"): one row per
// file (agent, turns, compactions, confirmed losses, faults, headline), worst files first, then
// one line of totals. A row is summed in the thread that read the file, so only the row
// crosses to the main thread, never the file's report.
import { inputErrorCount, type CheckOutput } from '../core/checkOutput.ts';
import type { OmittedInputErrors } from '../core/inputErrorList.ts';
import { escapeControls } from '../core/terminalText.ts';
import type { TranscriptFormat } from '../ingest/adapters/detect.ts';
import type { ContextKind } from '../report/contextHeadline.ts';
import { type HeadlineKind } from '../report/headline.ts';
import { sessionHeadline } from '../report/sessionHeadline.ts';
import { inputErrorsNote } from '../report/inputErrorWords.ts';

export interface BatchRow {
  file: string;
  /** null: the file could not be read (`error` says why) */
  agent: TranscriptFormat | null;
  /** the agent its adapter's header names, where that is not the format's name: mini-swe-agent's trajectories are SWE-agent's format */
  agentName?: string;
  turns: number;
  compactions: number;
  confirmedLosses: number;
  faults: number;
  inputErrors: number;
  /** contract §2.5: the errors past the first 1,000, counted by reason; absent when all are listed */
  inputErrorsOmitted?: OmittedInputErrors;
  /** the worst of its sessions' headlines (src/report/sessionHeadline.ts), or null with no turn */
  headline: { kind: RowKind; label: string } | null;
  error?: string;
}

type RowKind = HeadlineKind | ContextKind;

/**
 * Worst first over both sets of words: a scored loop's (contract §5) and an imported agent's
 * (contract §8.9), ranked by what they ask of a reader: nothing, a warning, a fault, an action.
 */
const ROW_RANK: Readonly<Record<RowKind, number>> = {
  prune_ok: 0,
  context_ok: 0,
  warning: 1,
  near_limit: 1,
  fault: 2,
  loss_confirmed: 2,
  lineage_broken: 2,
  drop: 3,
  recompute: 4,
  freeze: 5,
};

const AGENT: Readonly<Record<TranscriptFormat, string>> = {
  wire: 'context-health',
  'claude-code': 'claude-code',
  codex: 'codex',
  'swe-agent': 'swe-agent',
  gemini: 'gemini',
  openhands: 'openhands',
};

/** The header source every session of the report names, when they all name the same one. */
function sharedSource(report: CheckOutput, sources: ReadonlyMap<string, string> | undefined): string | undefined {
  const first = report.sessions[0];
  const source = first === undefined ? undefined : sources?.get(first.session_id);
  return source !== undefined && report.sessions.every((s) => sources!.get(s.session_id) === source) ? source : undefined;
}

/** The row of one file's report: the sums, and the worst of its turns' headlines. */
export function batchRow(
  file: string,
  agent: TranscriptFormat,
  report: CheckOutput,
  pressureThresholds?: ReadonlyMap<string, number>,
  sources?: ReadonlyMap<string, string>,
): BatchRow {
  let turns = 0;
  let compactions = 0;
  let confirmedLosses = 0;
  let faults = 0;
  let worst: BatchRow['headline'] = null;
  for (const s of report.sessions) {
    turns += s.turns;
    for (const c of s.compactions ?? []) {
      compactions++;
      for (const it of c.items) if (it.confirmed) confirmedLosses++;
    }
    for (const f of s.findings) if (f.severity === 'fault') faults++;
    // the session's words, as its banner and the single-file report give them
    const threshold = pressureThresholds?.get(s.session_id);
    const h = sessionHeadline(s, threshold === undefined ? {} : { pressureThreshold: threshold });
    if (h !== null && (worst === null || ROW_RANK[h.kind] > ROW_RANK[worst.kind])) worst = { kind: h.kind, label: h.label };
  }
  const omitted = report.input_errors_omitted;
  // docs/adapters.md: an adapter's header names the agent it read (the SWE-agent format reads
  // mini-swe-agent's trajectories too); a native transcript's `source` is the input's own words
  const named = agent === 'wire' ? undefined : sharedSource(report, sources);
  return {
    file,
    agent,
    ...(named !== undefined && named !== AGENT[agent] ? { agentName: named } : {}),
    turns,
    compactions,
    confirmedLosses,
    faults,
    inputErrors: inputErrorCount(report),
    ...(omitted === undefined ? {} : { inputErrorsOmitted: omitted }),
    headline: worst,
  };
}

export function unreadableRow(file: string, error: string): BatchRow {
  return { file, agent: null, turns: 0, compactions: 0, confirmedLosses: 0, faults: 0, inputErrors: 0, headline: null, error };
}

/**
 * Worst first: unreadable files, files with no valid snapshot (input errors), then by
 * headline, faults, confirmed losses; ties by path. An agent's session with no model call in
 * it (a session opened and left, as a real folder holds many) has nothing to look at: last.
 */
function worse(a: BatchRow, b: BatchRow): number {
  const rank = (r: BatchRow): number => (r.error !== undefined ? 100 : r.headline !== null ? ROW_RANK[r.headline.kind] : noModelCall(r) ? -1 : 50);
  return rank(b) - rank(a) || b.faults - a.faults || b.confirmedLosses - a.confirmedLosses || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "3 input errors", or past the first 1,000 (contract §2.5) what was only counted, by reason */
const errorsNote = (r: BatchRow): string =>
  r.inputErrorsOmitted === undefined ? plural(r.inputErrors, 'input error') : inputErrorsNote(r.inputErrors - r.inputErrorsOmitted.count, r.inputErrorsOmitted);

/** A row with no turn, as `check FILE` says it (adapterNote.ts noSnapshotSentence): an agent's session with no model call, or the input errors. */
const noSnapshotWords = (r: BatchRow): string => (noModelCall(r) ? 'no model call in it' : `no valid snapshot (${errorsNote(r)})`);

/** A row with no turn because the agent's session made no model call (not for want of a valid line). */
function noModelCall(r: BatchRow): boolean {
  return r.turns === 0 && r.agent !== null && r.agent !== 'wire' && r.inputErrors === 0;
}

/**
 * How wide the file column is padded at most. Every row was padded to the longest name: one
 * path of 16,000 characters once escaped (names of control bytes near PATH_MAX) made 3,000 rows
 * 48 MB, and 33,000 of them a table longer than V8's longest string, so nothing was printed.
 * A longer name overflows its own row only; real paths are far shorter.
 */
const FILE_COLUMN_MAX = 512;

/** The table, worst files first, and the line of totals. File names are shown escaped (they come from the disk). */
export function batchTable(rows: readonly BatchRow[], skipped: number): string {
  const sorted = [...rows].sort(worse);
  const header = ['file', 'agent', 'turns', 'compactions', 'confirmed losses', 'faults', 'headline'];
  const cells = sorted.map((r) =>
    r.error !== undefined
      ? [r.file, '-', '-', '-', '-', '-', `cannot read: ${r.error}`]
      : [
          r.file,
          r.agentName ?? AGENT[r.agent!],
          String(r.turns),
          String(r.compactions),
          String(r.confirmedLosses),
          String(r.faults),
          r.headline === null ? noSnapshotWords(r) : r.headline.label + (r.inputErrors > 0 ? ` (${errorsNote(r)})` : ''),
        ],
  );
  const all = [header, ...cells.map((row) => row.map((c, i) => (i === 0 || i === 6 ? escapeControls(c) : c)))];
  // reduced, not spread: one row per file, and a folder may hold 100,000; the file column no
  // wider than FILE_COLUMN_MAX, so that one long name does not widen every row
  const widths = header.map((_, i) => all.reduce((w, row) => Math.max(w, i === 0 ? Math.min(row[i]!.length, FILE_COLUMN_MAX) : row[i]!.length), 0));
  // numbers right-aligned, words left; the last column is not padded
  const numeric = new Set([2, 3, 4, 5]);
  const lines = all.map((row) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  const read = rows.filter((r) => r.error === undefined);
  const sum = (f: (r: BatchRow) => number): number => read.reduce((n, r) => n + f(r), 0);
  const unreadable = rows.length - read.length;
  const totals = [
    `${plural(rows.length, 'file')}`,
    `${plural(
      sum((r) => r.turns),
      'turn',
    )}`,
    `${plural(
      sum((r) => r.compactions),
      'compaction',
    )}`,
    `${sum((r) => r.confirmedLosses)} confirmed loss${sum((r) => r.confirmedLosses) === 1 ? '' : 'es'}`,
    `${plural(
      sum((r) => r.faults),
      'fault',
    )}`,
  ];
  const extra = [
    unreadable > 0 ? `${unreadable} could not be read` : '',
    skipped > 0 ? `${plural(skipped, 'other file')} in the folders skipped (not transcripts)` : '',
  ]
    .filter((s) => s !== '')
    .join('; ');
  return `${lines.join('\n')}\n\ntotal: ${totals.join(', ')}${extra === '' ? '' : `; ${extra}`}\n`;
}
