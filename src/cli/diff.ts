// `context-health diff <a> <b>`: two transcripts through the engine, one session of each
// compared (src/core/compare.ts), as a regression gate for CI: "this change introduced
// collapse" (contract §6.4).
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { compareCompactions, type CompactionComparison, type CompactionTotals } from '../core/compactionDiff.ts';
import { compareSessions, newIncidents, outlineOfReport, relativePosition, type Alignment, type Comparison, type TurnVerdict } from '../core/compare.ts';
import { parseThresholdSetting, type Thresholds } from '../core/config.ts';
import type { Incident } from '../core/incidents.ts';
import { inputErrorCount, type CheckOutput, type SessionOutput } from '../core/checkOutput.ts';
import { SEVERITY, type Severity } from '../core/signals.ts';
import { checkTranscript, type CheckResult } from './check.ts';
import { capThreads, parseThreads } from './threads.ts';
import { writeAll } from './output.ts';
import { writeJsonPieces } from './jsonPieces.ts';
import { errorLine, escapeLines } from '../core/terminalText.ts';
import { appendAll } from '../core/arrays.ts';

export const DIFF_USAGE =
  'context-health diff <a> <b> [--json] [--fail-on-new fault|warning|never] [--align turn|relative] [--session ID [--session ID]] [--set key=value]... [--threads N]';

export interface DiffIo {
  stdout: Writable;
  stderr: Writable;
}

/** One side of the comparison as `diff --json` reports it (contract §6.4). */
interface SideJson {
  file: string;
  session_id: string;
  turns: number;
  input_errors: number;
}

interface IncidentJson {
  signal: string;
  severity: Severity;
  first_turn: number;
  last_turn: number;
  /** snapshots in the run */
  turns: number;
}

interface VerdictJson {
  turn: number;
  /** share of the session before this turn, 0 (first) to 1 (last) */
  position: number;
  action: string;
  drop: boolean;
}

export interface DiffJson {
  a: SideJson;
  b: SideJson;
  align: Alignment;
  signals: Comparison['signals'];
  first_divergence: { a: VerdictJson; b: VerdictJson; cause: string | null; signals: string[] } | null;
  incidents: { only_a: IncidentJson[]; only_b: IncidentJson[]; both: { a: IncidentJson; b: IncidentJson }[] };
  fail_on_new: Severity | 'never';
  /** the incidents only in B at or above fail_on_new: exit status 1 when not empty */
  new: IncidentJson[];
  /** contract §8.3: the two sessions' compaction audits; absent when neither has a compaction */
  compactions?: CompactionComparison;
}

class DiffUsageError extends Error {}

/** Runs `diff`; returns the exit status (contract §6.4): 0 nothing new, 1 something new, 2 unreadable or wrong. */
export async function runDiff(args: string[], io: DiffIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let options: DiffOptions;
  try {
    options = parseDiffArgs(args);
  } catch (e) {
    if (e instanceof DiffUsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      await writeAll(io.stderr, escapeLines(`context-health: ${(e as Error).message}\nusage: ${DIFF_USAGE}\n`));
      return 2;
    }
    throw e;
  }
  const { paths, sessionIds } = options;
  // Both read at once: each read waits on the disk (libuv's pool) while the other is analysed.
  // The same file named twice (two sessions of one file) is read once. A diff, --json too,
  // reads findings, verdicts and compactions, never a score: an agent's session is not scored
  // (docs/engine.md "Scores nobody reads"), nor a per-span figure: its snapshots may be
  // abridged (docs/engine.md "Snapshots abridged").
  const unique = paths[0] === paths[1] && paths[0] !== '-' ? [paths[0]] : paths;
  const settled = await Promise.allSettled(
    unique.map((p) =>
      checkTranscript(p, {
        userThresholds: options.userThresholds,
        readsReferenceScores: false,
        readsSpanFigures: false,
        ...(options.threads === undefined ? {} : { threads: options.threads }),
      }),
    ),
  );
  const results: CheckResult[] = [];
  for (let i = 0; i < 2; i++) {
    const s = settled[Math.min(i, unique.length - 1)]!;
    if (s.status === 'rejected') {
      await writeAll(io.stderr, errorLine(`context-health: cannot read ${shown(paths[i]!)}: ${(s.reason as Error).message}`));
      return 2;
    }
    results.push(s.value);
  }
  const sides: SessionOutput[] = [];
  for (let i = 0; i < 2; i++) {
    const picked = pickSession(results[i]!.report, sessionIds[i]);
    if (typeof picked === 'string') {
      await writeAll(io.stderr, errorLine(`context-health: ${shown(paths[i]!)}: ${picked}`));
      return 2;
    }
    sides.push(picked);
  }
  const [a, b] = sides as [SessionOutput, SessionOutput];
  const comparison = compareSessions(outlineOfReport(a), outlineOfReport(b), options.align);
  const fresh = options.failOnNew === 'never' ? [] : newIncidents(comparison, options.failOnNew);
  const json = diffJson(comparison, [a, b], results, paths, options.failOnNew, fresh);
  // titles and ids come from the files: shown, not acted on by the terminal (terminalText.ts)
  if (options.json) {
    // in pieces, never one string (docs/security.md "Output streams")
    await writeJsonPieces(io.stdout, json, '\n');
  } else await writeAll(io.stdout, escapeLines(humanDiff(json, results)));
  return fresh.length > 0 ? 1 : 0;
}

interface DiffOptions {
  paths: [string, string];
  /** per side: the session asked for, or undefined for the first */
  sessionIds: [string | undefined, string | undefined];
  json: boolean;
  failOnNew: Severity | 'never';
  align: Alignment;
  userThresholds: Partial<Thresholds>;
  /** `--threads N`, as for check (default: the cores) */
  threads?: number;
}

function parseDiffArgs(args: string[]): DiffOptions {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'fail-on-new': { type: 'string', default: 'fault' },
      align: { type: 'string', default: 'turn' },
      session: { type: 'string', multiple: true, default: [] },
      set: { type: 'string', multiple: true, default: [] },
      threads: { type: 'string' },
    },
  });
  if (positionals.length !== 2) throw new DiffUsageError('diff takes exactly two files (one of them may be - for stdin)');
  const paths = positionals as [string, string];
  if (paths[0] === '-' && paths[1] === '-') throw new DiffUsageError('stdin (-) can be only one of the two files');
  const failOnNew = values['fail-on-new'];
  if (failOnNew !== 'fault' && failOnNew !== 'warning' && failOnNew !== 'never') {
    throw new DiffUsageError(`--fail-on-new must be fault, warning or never, got ${JSON.stringify(failOnNew)}`);
  }
  const align = values.align;
  if (align !== 'turn' && align !== 'relative') throw new DiffUsageError(`--align must be turn or relative, got ${JSON.stringify(align)}`);
  // one --session names the session on both sides; two name A's and B's (two sessions of one file)
  const sessions = values.session;
  if (sessions.length > 2) throw new DiffUsageError('--session is given once (both sides) or twice (A, then B)');
  const sessionIds: [string | undefined, string | undefined] = [sessions[0], sessions[1] ?? sessions[0]];
  const userThresholds: Partial<Thresholds> = {};
  for (const setting of values.set) {
    const parsed = parseThresholdSetting(setting);
    if ('error' in parsed) throw new DiffUsageError(parsed.error);
    userThresholds[parsed.key] = parsed.value;
  }
  const threads = values.threads === undefined ? undefined : parseThreads(values.threads);
  if (typeof threads === 'object') throw new DiffUsageError(threads.error);
  const capped = threads === undefined ? undefined : capThreads(threads, (l) => process.stderr.write(`${l}\n`));
  return { paths, sessionIds, json: values.json, failOnNew, align, userThresholds, ...(capped === undefined ? {} : { threads: capped }) };
}

/** The session asked for, else the first with an accepted snapshot; or why there is none. */
function pickSession(report: CheckOutput, id: string | undefined): SessionOutput | string {
  if (id !== undefined) {
    const s = report.sessions.find((x) => x.session_id === id);
    if (s !== undefined) return s;
    const known = report.sessions.map((x) => JSON.stringify(x.session_id)).join(', ');
    return `no session ${JSON.stringify(id)} (sessions: ${known || 'none'})`;
  }
  return report.sessions.find((x) => x.turns > 0) ?? `holds no valid snapshot (${inputErrorCount(report)} input errors)`;
}

const shown = (path: string): string => (path === '-' ? 'stdin' : path);

function incidentJson(x: Incident): IncidentJson {
  return { signal: x.signal, severity: SEVERITY[x.signal], first_turn: x.firstTurn, last_turn: x.lastTurn, turns: x.last - x.first + 1 };
}

function diffJson(
  c: Comparison,
  sessions: [SessionOutput, SessionOutput],
  results: CheckResult[],
  paths: [string, string],
  failOnNew: Severity | 'never',
  fresh: Incident[],
): DiffJson {
  const side = (i: 0 | 1): SideJson => ({
    file: shown(paths[i]),
    session_id: sessions[i].session_id,
    turns: sessions[i].turns,
    input_errors: inputErrorCount(results[i]!.report),
  });
  const verdict = (v: TurnVerdict, s: SessionOutput): VerdictJson => ({
    turn: v.turn,
    position: relativePosition(v.index, s.turns),
    action: v.action,
    drop: v.drops,
  });
  const d = c.firstDivergence;
  const compactions = compareCompactions(sessions[0].compactions, sessions[1].compactions);
  return {
    a: side(0),
    b: side(1),
    align: c.align,
    signals: c.signals,
    first_divergence: d === null ? null : { a: verdict(d.a, sessions[0]), b: verdict(d.b, sessions[1]), cause: d.cause, signals: d.signals },
    incidents: {
      only_a: c.onlyA.map(incidentJson),
      only_b: c.onlyB.map(incidentJson),
      both: c.both.map((p) => ({ a: incidentJson(p.a), b: incidentJson(p.b) })),
    },
    fail_on_new: failOnNew,
    new: fresh.map(incidentJson),
    ...(compactions === null ? {} : { compactions }),
  };
}

/** The terminal form: what a person reads after a CI job failed. Not for parsing. */
function humanDiff(d: DiffJson, results: CheckResult[]): string {
  const out: string[] = [];
  const sideLine = (label: string, s: SideJson, r: CheckResult): string => {
    const title = r.titles.get(s.session_id);
    const errors = s.input_errors > 0 ? `, ${s.input_errors} input error${s.input_errors === 1 ? '' : 's'} in the file` : '';
    return `${label}  ${s.file}: session ${JSON.stringify(s.session_id)}${title ? ` (${title})` : ''}, ${s.turns} turns${errors}`;
  };
  out.push(sideLine('A', d.a, results[0]!), sideLine('B', d.b, results[1]!));
  out.push(d.align === 'turn' ? 'aligned by turn number' : 'aligned by relative position (0–100% of each session)', '');
  if (d.signals.length === 0) out.push('no signal fired in either session');
  else {
    out.push('  signal                   severity      A      B   B − A');
    for (const s of d.signals) {
      const diff = s.difference === 0 ? '0' : s.difference > 0 ? `+${s.difference}` : `−${-s.difference}`;
      out.push(`  ${s.signal.padEnd(24)} ${s.severity.padEnd(9)} ${String(s.a).padStart(6)} ${String(s.b).padStart(6)} ${diff.padStart(7)}`);
    }
  }
  out.push('');
  const v = d.first_divergence;
  if (v === null) out.push('verdicts: the same on every compared turn');
  else {
    const at = (x: VerdictJson): string => `turn ${x.turn}${d.align === 'relative' ? ` (${Math.round(x.position * 100)}%)` : ''}`;
    const what = (x: VerdictJson): string => `${x.action}${x.drop ? ' + drop' : ''}`;
    const where = d.align === 'turn' ? at(v.a) : `A ${at(v.a)}, B ${at(v.b)}`;
    const others = v.signals.filter((s) => s !== v.cause);
    out.push(`first divergence at ${where}: A ${what(v.a)}, B ${what(v.b)}${v.cause ? `, because of ${v.cause}` : ''}`);
    if (others.length > 0) out.push(`  also fired on one side only there: ${others.join(', ')}`);
  }
  const runs = (x: IncidentJson): string =>
    `${x.signal.padEnd(24)} ${x.severity.padEnd(9)} turn${x.first_turn === x.last_turn ? ` ${x.first_turn}` : `s ${x.first_turn}–${x.last_turn}`}`;
  const listed = (title: string, list: IncidentJson[], most = 20): void => {
    out.push('', `${title}: ${list.length}`);
    for (const x of list.slice(0, most)) out.push(`  ${runs(x)}`);
    if (list.length > most) out.push(`  … and ${list.length - most} more (see --json)`);
  };
  listed('incidents only in B', d.incidents.only_b);
  out.push(`incidents only in A: ${d.incidents.only_a.length}; in both: ${d.incidents.both.length} (overlapping pairs)`);
  if (d.compactions !== undefined) appendAll(out, ['', ...compactionTable(d.compactions)]);
  out.push('');
  if (d.fail_on_new === 'never') out.push('--fail-on-new never: exit 0');
  else if (d.new.length === 0) out.push(`nothing new at ${d.fail_on_new} level or above in B: exit 0`);
  else out.push(`${d.new.length} incident${d.new.length === 1 ? '' : 's'} only in B at ${d.fail_on_new} level or above: exit 1`);
  return out.join('\n') + '\n';
}

/** contract §8.3: the compaction audits of A and B, row by row. */
function compactionTable(c: CompactionComparison): string[] {
  const share = (t: CompactionTotals, kind: 'file' | 'user_prompt' | 'todo'): string => {
    const k = t.retention[kind];
    return k === undefined || k.items === 0 ? '—' : `${k.kept}/${k.items} (${Math.round((100 * k.kept) / k.items)}%)`;
  };
  const confirmed = (t: CompactionTotals): number => Object.values(t.retention).reduce((n, k) => n + k.confirmed, 0);
  const unknown = (t: CompactionTotals): number => Object.values(t.retention).reduce((n, k) => n + (k.unknown ?? 0), 0);
  const shrink = (t: CompactionTotals): string => (t.mean_shrink === null ? '—' : `${Math.round(t.mean_shrink * 100)}%`);
  const row = (label: string, a: string | number, b: string | number): string => `  ${label.padEnd(30)} ${String(a).padStart(14)} ${String(b).padStart(14)}`;
  return [
    `compactions (contract §8.3)${' '.repeat(5)}${'A'.padStart(14)} ${'B'.padStart(14)}`,
    row('count', c.a.compactions, c.b.compactions),
    row('files still named after it', share(c.a, 'file'), share(c.b, 'file')),
    row('prompts kept word for word', share(c.a, 'user_prompt'), share(c.b, 'user_prompt')),
    row('todos kept', share(c.a, 'todo'), share(c.b, 'todo')),
    row('confirmed losses', confirmed(c.a), confirmed(c.b)),
    // contract §8.4 unknown: a row only when a side has items an encrypted summary may hold, so other diffs read as before
    ...(unknown(c.a) + unknown(c.b) > 0 ? [row('unknown (summary encrypted)', unknown(c.a), unknown(c.b))] : []),
    row('tokens after / before (mean)', shrink(c.a), shrink(c.b)),
  ];
}
