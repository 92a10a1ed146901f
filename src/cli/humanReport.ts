// The terminal report of `check` without --json: what a person reads first.
import type { CheckReport, SessionReport } from '../core/report.ts';
import { SIGNALS, SEVERITY, type Signal } from '../core/signals.ts';

export function humanReport(report: CheckReport, source: string, titles: ReadonlyMap<string, string> = new Map()): string {
  const out: string[] = [];
  const turns = report.sessions.reduce((n, s) => n + s.turns, 0);
  out.push(`${source}: ${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}, ${turns} turns, ${report.input_errors.length} input error${report.input_errors.length === 1 ? '' : 's'}`);
  for (const s of report.sessions) out.push('', ...sessionSection(s, titles.get(s.session_id)));
  if (report.input_errors.length > 0) {
    out.push('', 'Input errors (these lines were skipped; every other line was analysed):');
    for (const e of report.input_errors.slice(0, 20)) out.push(`  line ${e.line}: ${e.message}`);
    if (report.input_errors.length > 20) out.push(`  … and ${report.input_errors.length - 20} more (see --json)`);
  }
  return out.join('\n') + '\n';
}

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
      const runs = runsOf(list, order);
      const shown = runs.slice(0, 4).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ');
      out.push(`  ${signal.padEnd(24)} ${SEVERITY[signal].padEnd(9)} ${String(list.length).padStart(5)}  ${shown}${runs.length > 4 ? ` (+${runs.length - 4} more runs)` : ''}`);
    }
  }
  const notOk = s.verdicts.filter((v) => v.action !== 'prune_ok');
  const dropTurns = s.verdicts.filter((v) => v.drop.length > 0);
  if (notOk.length === 0 && dropTurns.length === 0) out.push('  verdict: prune_ok on every turn');
  else {
    out.push(`  verdicts other than prune_ok: ${notOk.length} of ${s.turns} turns`);
    for (const v of notOk.slice(0, 8)) {
      const what = v.action === 'recompute' ? `recompute ${v.recompute.length} span${v.recompute.length === 1 ? '' : 's'} (${v.recompute.slice(0, 6).join(', ')}${v.recompute.length > 6 ? ', …' : ''})` : 'freeze pruning, carry the full context forward';
      out.push(`    turn ${v.turn}: ${what}${v.drop.length > 0 ? `; drop ${v.drop.join(', ')}` : ''}`);
    }
    if (notOk.length > 8) out.push(`    … and ${notOk.length - 8} more (see --json)`);
    const dropOnly = dropTurns.filter((v) => v.action === 'prune_ok');
    for (const v of dropOnly.slice(0, 4)) out.push(`    turn ${v.turn}: drop ${v.drop.join(', ')} (poisoned)`);
  }
  return out;
}

/** Runs of consecutive snapshots (in session order) on which a signal fired. */
export function runsOf(turns: number[], order: number[]): [number, number][] {
  const pos = new Map<number, number>();
  order.forEach((t, i) => pos.set(t, i));
  const runs: [number, number][] = [];
  let prevPos = -2;
  for (const t of turns) {
    const p = pos.get(t) ?? -1;
    if (runs.length > 0 && p === prevPos + 1) runs[runs.length - 1]![1] = t;
    else runs.push([t, t]);
    prevPos = p;
  }
  return runs;
}
