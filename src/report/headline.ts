// One headline per turn (issue 24): the worst of the contract §5 verdict and of the turn's
// findings, in words a harness author acts on. The §5 verdict says what the scores allow
// (prune_ok ignores poisoned spans and every fault outside the score binding); a reader of
// the banner wants to know what to do, so a drop or a fault outranks "prune_ok" here. The
// dashboard's banner, the overview's chip, the print page and the incident reports all take
// their words from this module, so no two screens call one turn by different names. Pure:
// no DOM, no Node.
import { SEVERITY, SEVERITY_RANK, type Action, type Severity, type Signal } from '../core/signals.ts';
import { SIGNAL_INFO } from './signalInfo.ts';
import type { ContextKind } from './contextHeadline.ts';

/** What the headline says to do, worst first. */
export type HeadlineKind = 'freeze' | 'recompute' | 'drop' | 'fault' | 'warning' | 'prune_ok';

export const HEADLINE_RANK: Readonly<Record<HeadlineKind, number>> = { prune_ok: 0, warning: 1, fault: 2, drop: 3, recompute: 4, freeze: 5 };

export interface HeadlineInput {
  turn: number;
  action: Action;
  recompute: readonly string[];
  drop: readonly string[];
  /** the signals that fired at this turn (each once; severity from the contract when absent) */
  findings: readonly { signal: Signal; severity?: Severity }[];
}

export interface HeadlineFinding {
  signal: Signal;
  severity: Severity;
  title: string;
  todo: string;
}

export interface Headline {
  /** a scored loop's kind, or (contract §8.9) an out-of-scope session's (contextHeadline.ts) */
  kind: HeadlineKind | ContextKind;
  tone: 'ok' | 'warn' | 'fault';
  /** the banner's big word: FREEZE, RECOMPUTE, DROP, FAULT, PRUNE OK (or contract §8.9's) */
  label: string;
  /** what to do, one sentence without the span lists */
  say: string;
  /** the turn's faults, then warnings, then infos (contract order within each) */
  findings: HeadlineFinding[];
  faults: number;
  warnings: number;
  /** the whole headline as one line of text (print, reports, titles) */
  text: string;
}

const LABEL: Readonly<Record<HeadlineKind, string>> = {
  freeze: 'FREEZE',
  recompute: 'RECOMPUTE',
  drop: 'DROP',
  fault: 'FAULT',
  warning: 'PRUNE WITH CARE',
  prune_ok: 'PRUNE OK',
};

/** The one sentence that lets pruning go ahead: only ever said of a turn with no fault and no drop. */
export const PRUNE_OK_SAY = 'Every score is bound to its text and the scorer is not collapsed: pruning may proceed.';

const SAY: Readonly<Record<HeadlineKind, string>> = {
  freeze: 'Relevance collapse: halt pruning and carry the full context forward until the scores recover.',
  recompute: 'Recompute these scores from their current text before pruning (never adjust a stale score by a delta).',
  drop: 'Remove these spans from the context; do not rescore them (paraphrase of a paraphrase).',
  fault: 'The scores are bound, but a fault fired: fix it before pruning on these scores.',
  warning: 'The scores are bound; read the warnings before pruning.',
  prune_ok: PRUNE_OK_SAY,
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function listed(ids: readonly string[], max = 6): string {
  const shown = ids.slice(0, max).join(', ');
  return ids.length > max ? `${shown} (+${ids.length - max})` : shown;
}

/** The turn's headline: the verdict's action when it is not prune_ok, else a drop, else the worst finding. */
export function headline(input: HeadlineInput): Headline & { kind: HeadlineKind } {
  const findings: HeadlineFinding[] = input.findings
    .map((f) => {
      const severity = f.severity ?? SEVERITY[f.signal];
      return { signal: f.signal, severity, title: SIGNAL_INFO[f.signal].title, todo: SIGNAL_INFO[f.signal].todo };
    })
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_RANK[b.f.severity] - SEVERITY_RANK[a.f.severity] || a.i - b.i)
    .map((x) => x.f);
  const faults = findings.filter((f) => f.severity === 'fault').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const kind: HeadlineKind =
    input.action !== 'prune_ok' ? input.action : input.drop.length > 0 ? 'drop' : faults > 0 ? 'fault' : warnings > 0 ? 'warning' : 'prune_ok';
  const tone = kind === 'prune_ok' ? 'ok' : kind === 'warning' || (kind === 'recompute' && faults === 0) ? 'warn' : 'fault';
  const label = LABEL[kind];
  // the lead names the spans the action is about, as a harness log line would
  let lead = label;
  if (kind === 'recompute') lead += ` ${plural(input.recompute.length, 'span')} (${listed(input.recompute)})`;
  if (kind === 'drop') lead += ` ${listed(input.drop)}`;
  const clauses: string[] = [];
  if (kind === 'drop') clauses.push('poisoned span, remove it, do not rescore');
  else if (kind !== 'fault' && kind !== 'warning') clauses.push(SAY[kind].replace(/\.$/, ''));
  // a drop beside a recompute or freeze is its own instruction
  if (input.drop.length > 0 && kind !== 'drop') clauses.push(`drop ${listed(input.drop)} (poisoned, do not rescore)`);
  const worst = findings.filter((f) => f.severity !== 'info');
  if (worst.length > 0) {
    const counted = [faults > 0 ? plural(faults, 'fault') : '', warnings > 0 ? plural(warnings, 'warning') : ''].filter((s) => s !== '').join(', ');
    clauses.push(`${counted}: ${worst.map((f) => `${f.signal} (${f.todo.replace(/\.$/, '')})`).join('; ')}`);
  }
  return { kind, tone, label, say: SAY[kind], findings, faults, warnings, text: `${lead} — ${clauses.join('; ')}.` };
}

/**
 * The overview's chip for a session's last turn: the headline's kind, from the verdict and
 * the signals an ack carries (docs/relay-protocol.md), so a row never shows a green
 * "prune_ok" beside a turn that dropped a span or fired a fault.
 */
export function chipKind(verdict: { action: Action; drop: readonly string[]; signals: readonly string[] }): HeadlineKind {
  const known = verdict.signals.filter((s): s is Signal => s in SEVERITY);
  return headline({ turn: 0, action: verdict.action, recompute: [], drop: verdict.drop, findings: known.map((signal) => ({ signal })) }).kind;
}

/** What the harness does over a run of turns in a report's verdict table; never "prune as usual" where a fault fired. */
export function rangeAdvice(hasFault: boolean): string {
  return hasFault
    ? 'no verdict other than prune_ok, but faults fired in this range (above): fix them before pruning on these scores'
    : 'the harness may prune as usual';
}

/** Words of a source whose input lost lines (contract §2.5): said in the headline, never "healthy" without them. */
export function droppedLinesWords(errors: number, turns: number): string {
  return `${plural(errors, 'input line')} could not be read (${plural(turns, 'turn')} analysed): the verdicts say nothing about what those lines held.`;
}
