// The terminal report of `check` without --json: what a person reads first.
import { inputErrorCount, type CheckOutput, type SessionOutput } from '../core/checkOutput.ts';
import { runsOf } from '../core/incidents.ts';
import { compactionLines, notApplicableLines } from '../report/compactionWords.ts';
import { SIGNALS, SEVERITY, type Signal } from '../core/signals.ts';
import { droppedLinesWords, headline, HEADLINE_RANK, type Headline, type HeadlineKind } from '../report/headline.ts';
import { escapeControls } from '../core/terminalText.ts';
import { outOfScope, sessionHeadline } from '../report/sessionHeadline.ts';
import { appendAll } from '../core/arrays.ts';
import { moreInputErrorsWords, unshownReasons } from '../report/inputErrorWords.ts';

/** Input errors the terminal shows one by one; the rest are summed up in one line. */
const SHOWN_ERRORS = 20;

/**
 * `pressureThresholds`: each session's pressure_threshold as its engine resolved it (header
 * config, `--set`): the §8.9 headline of an out-of-scope session says "near the limit" by it.
 */
export function humanOutput(
  report: CheckOutput,
  source: string,
  titles: ReadonlyMap<string, string> = new Map(),
  pressureThresholds: ReadonlyMap<string, number> = new Map(),
): string {
  const out: string[] = [];
  const turns = report.sessions.reduce((n, s) => n + s.turns, 0);
  const errors = inputErrorCount(report);
  out.push(
    `${source}: ${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}, ${turns} turns, ${errors} input error${errors === 1 ? '' : 's'}`,
  );
  for (const s of report.sessions) appendAll(out, ['', ...sessionSection(s, titles.get(s.session_id), errors, pressureThresholds.get(s.session_id))]);
  if (errors > 0) {
    out.push('', 'Input errors (these lines were skipped; every other line was analysed):');
    for (const e of report.input_errors.slice(0, SHOWN_ERRORS)) out.push(`  line ${e.line}: ${e.message}`);
    const omitted = report.input_errors_omitted;
    if (omitted !== undefined) {
      // contract §2.5: past the first 1,000 only counts are kept, so --json cannot show the rest either
      const reasons = unshownReasons(report.input_errors.slice(SHOWN_ERRORS), omitted);
      out.push(`  ${moreInputErrorsWords(errors - SHOWN_ERRORS, reasons)}; --json lists the first ${report.input_errors.length} and counts the rest`);
    } else if (errors > SHOWN_ERRORS) out.push(`  … and ${errors - SHOWN_ERRORS} more (see --json)`);
  }
  // Titles, ids and bad lines come from the input: a terminal must not act on their control
  // characters (an ESC starts a sequence that can repaint or retitle the terminal)
  return out.map(escapeControls).join('\n') + '\n';
}

// the one escaping function of every command's terminal output (src/core/terminalText.ts)
export { escapeControls };

function sessionSection(s: SessionOutput, title: string | undefined, inputErrors: number, pressureThreshold: number | undefined): string[] {
  const out: string[] = [];
  const first = s.metrics[0]?.turn;
  const last = s.metrics[s.metrics.length - 1]?.turn;
  out.push(`Session ${JSON.stringify(s.session_id)}${title ? ` (${title})` : ''}: ${s.turns} turns${first === undefined ? '' : `, turn ${first} to ${last}`}`);
  const order = s.metrics.map((m) => m.turn);
  const turnsBySignal = new Map<Signal, number[]>();
  for (const f of s.findings) {
    let list = turnsBySignal.get(f.signal);
    if (list === undefined) turnsBySignal.set(f.signal, (list = []));
    list.push(f.turn);
  }
  if (turnsBySignal.size === 0) out.push(inputErrors > 0 ? '  no findings in the turns analysed' : '  no findings: every turn looks healthy');
  else {
    out.push('  signal                   severity  turns  runs (first–last turn)');
    for (const signal of SIGNALS) {
      const list = turnsBySignal.get(signal);
      if (list === undefined) continue;
      out.push(`  ${signal.padEnd(24)} ${SEVERITY[signal].padEnd(9)} ${String(list.length).padStart(5)}  ${runList(runsOf(list, order))}`);
    }
  }
  appendAll(out, outOfScope(s) ? contextLines(s, inputErrors, pressureThreshold) : headlineLines(s, order, inputErrors));
  appendAll(out, compactionLines(s.compactions));
  appendAll(out, notApplicableLines(s.not_applicable));
  return out;
}

/** Where the listed turns' text starts: under the longest headline word. */
const INDENT = ' '.repeat(4 + 'PRUNE WITH CARE'.length + 2);

const listIds = (ids: readonly string[]): string => `${ids.slice(0, 6).join(', ')}${ids.length > 6 ? ', …' : ''}`;

/**
 * The turns by headline (src/report/headline.ts), worst first: the words the dashboard's
 * banner, the overview, the reports and the print page use for the same turns (issue 24),
 * so a turn whose verdict is prune_ok but which dropped a span or fired a fault is listed
 * as DROP or FAULT here too. The JSON (contract §6.1) keeps the verdicts as they are.
 */
function headlineLines(s: SessionOutput, order: readonly number[], inputErrors: number): string[] {
  const findingsAt = new Map<number, { signal: Signal }[]>();
  for (const f of s.findings) {
    let list = findingsAt.get(f.turn);
    if (list === undefined) findingsAt.set(f.turn, (list = []));
    list.push(f);
  }
  const byKind = new Map<HeadlineKind, { turn: number; drop: readonly string[]; recompute: readonly string[]; h: Headline }[]>();
  for (const v of s.verdicts) {
    const h = headline({ ...v, findings: findingsAt.get(v.turn) ?? [] });
    if (h.kind === 'prune_ok') continue;
    let list = byKind.get(h.kind);
    if (list === undefined) byKind.set(h.kind, (list = []));
    list.push({ turn: v.turn, drop: v.drop, recompute: v.recompute, h });
  }
  if (byKind.size === 0) {
    const ok = headline({ turn: 0, action: 'prune_ok', recompute: [], drop: [], findings: [] });
    return [
      `  headline: ${ok.label} on every turn${inputErrors > 0 ? ' analysed' : ''}`,
      inputErrors > 0 ? `    ${droppedLinesWords(inputErrors, s.turns)}` : `    ${ok.say}`,
    ];
  }
  const counted = [...byKind.values()].reduce((n, l) => n + l.length, 0);
  const out = [`  headline other than PRUNE OK: ${counted} of ${s.turns} turns (worst first)`];
  for (const [kind, list] of [...byKind].sort((a, b) => HEADLINE_RANK[b[0]] - HEADLINE_RANK[a[0]])) {
    const first = list[0]!;
    const runs = runsOf(
      list.map((t) => t.turn),
      order,
    );
    const turns = `${runs.length === 1 && runs[0]![0] === runs[0]![1] ? 'turn' : 'turns'} ${runList(runs)}`;
    const label = `    ${first.h.label.padEnd(INDENT.length - 5)} `;
    const drops = [...new Set(list.flatMap((t) => t.drop))];
    if (kind === 'drop') out.push(`${label}${turns}: ${listIds(drops)}`);
    else out.push(`${label}${turns}`);
    if (kind === 'recompute')
      out.push(`${INDENT}first at turn ${first.turn}: ${first.recompute.length} span${first.recompute.length === 1 ? '' : 's'} (${listIds(first.recompute)})`);
    // a drop beside another headline is its own instruction (as the banner says it)
    if (kind !== 'drop' && drops.length > 0) out.push(`${INDENT}and drop ${listIds(drops)} (poisoned, do not rescore)`);
    out.push(`${INDENT}${first.h.say}`);
  }
  return out;
}

/**
 * contract §8.9: a session in the reference scope (§8.1) has no score verdict to list: its
 * headline as it stood at the last turn, in the banner's words (lineage, confirmed losses,
 * pressure), never "PRUNE OK".
 */
function contextLines(s: SessionOutput, inputErrors: number, pressureThreshold: number | undefined): string[] {
  const h = sessionHeadline(s, pressureThreshold === undefined ? {} : { pressureThreshold });
  if (h === null) return [];
  const out = [`  headline at turn ${h.turn}, the last (contract §8.9: no score detector ran):`, `    ${h.text}`];
  if (inputErrors > 0) out.push(`    ${droppedLinesWords(inputErrors, s.turns)}`);
  return out;
}

function runList(runs: [number, number][], most = 4): string {
  const shown = runs
    .slice(0, most)
    .map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`))
    .join(', ');
  return runs.length > most ? `${shown} (+${runs.length - most} more runs)` : shown;
}
