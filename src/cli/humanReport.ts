// The terminal report of `check` without --json: what a person reads first.
import type { CheckReport, SessionReport } from '../core/report.ts';
import { runsOf } from '../core/incidents.ts';
import { compactionLines, notApplicableLines } from '../report/compactionWords.ts';
import { SIGNALS, SEVERITY, type Signal } from '../core/signals.ts';
import { escapeControls } from '../core/terminalText.ts';

export function humanReport(report: CheckReport, source: string, titles: ReadonlyMap<string, string> = new Map()): string {
  const out: string[] = [];
  const turns = report.sessions.reduce((n, s) => n + s.turns, 0);
  out.push(
    `${source}: ${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}, ${turns} turns, ${report.input_errors.length} input error${report.input_errors.length === 1 ? '' : 's'}`,
  );
  for (const s of report.sessions) out.push('', ...sessionSection(s, titles.get(s.session_id)));
  if (report.input_errors.length > 0) {
    out.push('', 'Input errors (these lines were skipped; every other line was analysed):');
    for (const e of report.input_errors.slice(0, 20)) out.push(`  line ${e.line}: ${e.message}`);
    if (report.input_errors.length > 20) out.push(`  … and ${report.input_errors.length - 20} more (see --json)`);
  }
  // Titles, ids and bad lines come from the input: a terminal must not act on their control
  // characters (an ESC starts a sequence that can repaint or retitle the terminal)
  return out.map(escapeControls).join('\n') + '\n';
}

// the one escaping function of every command's terminal output (src/core/terminalText.ts)
export { escapeControls };

function sessionSection(s: SessionReport, title: string | undefined): string[] {
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
  if (turnsBySignal.size === 0) out.push('  no findings: every turn looks healthy');
  else {
    out.push('  signal                   severity  turns  runs (first–last turn)');
    for (const signal of SIGNALS) {
      const list = turnsBySignal.get(signal);
      if (list === undefined) continue;
      out.push(`  ${signal.padEnd(24)} ${SEVERITY[signal].padEnd(9)} ${String(list.length).padStart(5)}  ${runList(runsOf(list, order))}`);
    }
  }
  const notOk = s.verdicts.filter((v) => v.action !== 'prune_ok');
  const dropTurns = s.verdicts.filter((v) => v.drop.length > 0);
  if (notOk.length === 0 && dropTurns.length === 0) out.push('  verdict: prune_ok on every turn');
  else {
    out.push(`  verdicts other than prune_ok: ${notOk.length} of ${s.turns} turns`);
    const recompute = notOk.filter((v) => v.action === 'recompute');
    if (recompute.length > 0) {
      const first = recompute[0]!;
      out.push(
        `    recompute  turns ${runList(
          runsOf(
            recompute.map((v) => v.turn),
            order,
          ),
        )}`,
      );
      out.push(
        `               first at turn ${first.turn}: ${first.recompute.length} span${first.recompute.length === 1 ? '' : 's'} (${first.recompute.slice(0, 6).join(', ')}${first.recompute.length > 6 ? ', …' : ''})`,
      );
    }
    const freeze = notOk.filter((v) => v.action === 'freeze');
    if (freeze.length > 0)
      out.push(
        `    freeze     turns ${runList(
          runsOf(
            freeze.map((v) => v.turn),
            order,
          ),
        )}: halt pruning, carry the full context forward`,
      );
    if (dropTurns.length > 0) {
      const ids = [...new Set(dropTurns.flatMap((v) => v.drop))];
      out.push(
        `    drop       turns ${runList(
          runsOf(
            dropTurns.map((v) => v.turn),
            order,
          ),
        )}: ${ids.slice(0, 6).join(', ')}${ids.length > 6 ? ', …' : ''} (poisoned: drop, do not rescore)`,
      );
    }
  }
  out.push(...compactionLines(s.compactions), ...notApplicableLines(s.not_applicable));
  return out;
}

function runList(runs: [number, number][], most = 4): string {
  const shown = runs
    .slice(0, most)
    .map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`))
    .join(', ');
  return runs.length > most ? `${shown} (+${runs.length - most} more runs)` : shown;
}
