// `check` over many files, the human output (docs/contract.md §6.1 "Many files"): one row per
// file (agent, turns, compactions, confirmed losses, faults, headline), worst files first, then
// one line of totals. A row is summed in the thread that read the file, so only the row
// crosses to the main thread, never the file's report.
import type { CheckOutput } from '../core/checkOutput.ts';
import { escapeControls } from '../core/terminalText.ts';
import type { TranscriptFormat } from '../ingest/adapters/detect.ts';
import { headline, HEADLINE_RANK, type HeadlineKind } from '../report/headline.ts';

export interface BatchRow {
  file: string;
  /** null: the file could not be read (`error` says why) */
  agent: TranscriptFormat | null;
  turns: number;
  compactions: number;
  confirmedLosses: number;
  faults: number;
  inputErrors: number;
  /** the worst headline over the file's turns (src/report/headline.ts), or null with no turn */
  headline: { kind: HeadlineKind; label: string } | null;
  error?: string;
}

const AGENT: Readonly<Record<TranscriptFormat, string>> = {
  wire: 'context-health',
  'claude-code': 'claude-code',
  codex: 'codex',
  'swe-agent': 'swe-agent',
};

/** The row of one file's report: the sums, and the worst of its turns' headlines. */
export function batchRow(file: string, agent: TranscriptFormat, report: CheckOutput): BatchRow {
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
    const findingsAt = new Map<number, { signal: (typeof s.findings)[number]['signal']; severity: (typeof s.findings)[number]['severity'] }[]>();
    for (const f of s.findings) {
      if (f.severity === 'fault') faults++;
      let list = findingsAt.get(f.turn);
      if (list === undefined) findingsAt.set(f.turn, (list = []));
      list.push({ signal: f.signal, severity: f.severity });
    }
    // the headline module's words for each turn, as the single-file report lists them
    for (const v of s.verdicts) {
      const h = headline({ ...v, findings: findingsAt.get(v.turn) ?? [] });
      if (worst === null || HEADLINE_RANK[h.kind] > HEADLINE_RANK[worst.kind]) worst = { kind: h.kind, label: h.label };
    }
  }
  return { file, agent, turns, compactions, confirmedLosses, faults, inputErrors: report.input_errors.length, headline: worst };
}

export function unreadableRow(file: string, error: string): BatchRow {
  return { file, agent: null, turns: 0, compactions: 0, confirmedLosses: 0, faults: 0, inputErrors: 0, headline: null, error };
}

/** Worst first: unreadable files, then by headline, faults, confirmed losses; ties by path. */
function worse(a: BatchRow, b: BatchRow): number {
  const rank = (r: BatchRow): number => (r.error !== undefined ? 100 : r.headline === null ? 50 : HEADLINE_RANK[r.headline.kind]);
  return rank(b) - rank(a) || b.faults - a.faults || b.confirmedLosses - a.confirmedLosses || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The table, worst files first, and the line of totals. File names are shown escaped (they come from the disk). */
export function batchTable(rows: readonly BatchRow[], skipped: number): string {
  const sorted = [...rows].sort(worse);
  const header = ['file', 'agent', 'turns', 'compactions', 'confirmed losses', 'faults', 'headline'];
  const cells = sorted.map((r) =>
    r.error !== undefined
      ? [r.file, '-', '-', '-', '-', '-', `cannot read: ${r.error}`]
      : [
          r.file,
          AGENT[r.agent!],
          String(r.turns),
          String(r.compactions),
          String(r.confirmedLosses),
          String(r.faults),
          r.headline === null
            ? `no valid snapshot (${plural(r.inputErrors, 'input error')})`
            : r.headline.label + (r.inputErrors > 0 ? ` (${plural(r.inputErrors, 'input error')})` : ''),
        ],
  );
  const all = [header, ...cells.map((row) => row.map((c, i) => (i === 0 || i === 6 ? escapeControls(c) : c)))];
  // reduced, not spread: one row per file, and a folder may hold 100,000
  const widths = header.map((_, i) => all.reduce((w, row) => Math.max(w, row[i]!.length), 0));
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
