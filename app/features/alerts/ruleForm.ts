// The Alerts panel's form, as plain data, and how it becomes the body of
// `POST /api/alerts/rules` (docs/relay-protocol.md "Alerts"). Pure, so it is tested on its
// own; the relay still checks every rule (its 400 names the field and why) — this only
// catches what the form itself can tell before sending, so nothing half-typed is sent.
import type { AlertRuleInput } from '../../../src/protocol/relay.ts';

export type RuleKind = 'signal' | 'action' | 'baseline';

/** The form's fields, as the inputs hold them (strings: what the person typed). */
export interface RuleForm {
  kind: RuleKind;
  /** a contract §4 signal or `any` */
  signal: string;
  /** '' = no minimum */
  minSeverity: '' | 'info' | 'warning' | 'fault';
  action: 'prune_ok' | 'recompute' | 'freeze';
  percent: string;
  baselineTurns: string;
  forTurns: string;
  /** '' = every session */
  sessionId: string;
  /** '' = no webhook */
  webhook: string;
}

export const EMPTY_FORM: RuleForm = {
  kind: 'signal',
  signal: 'any',
  minSeverity: 'fault',
  action: 'freeze',
  percent: '50',
  baselineTurns: '10',
  forTurns: '1',
  sessionId: '',
  webhook: '',
};

/** A whole number typed in a field, or null when it is not one. */
function wholeNumber(text: string): number | null {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : null;
}

/** The rule the form describes, or an error sentence naming the field. */
export function ruleFromForm(f: RuleForm): { rule: AlertRuleInput } | { error: string } {
  const rule: AlertRuleInput = {};
  if (f.kind === 'signal') {
    if (f.signal.trim() === '') return { error: 'signal: choose a signal or "any"' };
    rule.signal = f.signal.trim();
    if (f.minSeverity !== '') rule.min_severity = f.minSeverity;
  } else if (f.kind === 'action') {
    rule.action = f.action;
  } else {
    const percent = Number(f.percent.trim());
    if (f.percent.trim() === '' || !Number.isFinite(percent))
      return { error: `spread below baseline: percent must be a number; got ${JSON.stringify(f.percent)}` };
    const turns = wholeNumber(f.baselineTurns);
    if (turns === null) return { error: `spread below baseline: baseline turns must be a whole number; got ${JSON.stringify(f.baselineTurns)}` };
    // the range checks (percent in (0, 100], turns ≤ 200) are the relay's: its 400 says them
    rule.spread_below_baseline = { percent, turns };
  }
  if (f.forTurns.trim() !== '') {
    const n = wholeNumber(f.forTurns);
    if (n === null) return { error: `for turns must be a whole number; got ${JSON.stringify(f.forTurns)}` };
    rule.for_turns = n;
  }
  if (f.sessionId.trim() !== '') rule.session_id = f.sessionId.trim();
  if (f.webhook.trim() !== '') rule.webhook = f.webhook.trim();
  return { rule };
}

/** One line describing a stored rule, for the list. */
export function describeRule(r: AlertRuleInput): string {
  let what: string;
  if (r.signal !== undefined) what = `${r.signal === 'any' ? 'any signal' : r.signal}${r.min_severity !== undefined ? ` ≥ ${r.min_severity}` : ''}`;
  else if (r.action !== undefined) what = `verdict ${r.action}`;
  else if (r.spread_below_baseline !== undefined)
    what = `score spread below ${r.spread_below_baseline.percent}% of the first ${r.spread_below_baseline.turns} turns' median`;
  else what = 'nothing';
  const n = r.for_turns ?? 1;
  return `${what}${n > 1 ? ` for ${n} turns` : ''} · ${r.session_id !== undefined ? `session ${r.session_id}` : 'every session'}${r.webhook !== undefined ? ` → ${r.webhook}` : ''}`;
}
