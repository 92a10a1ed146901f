// Alert rules (docs/relay.md "Alerts"): what a rule may say, checked with an error that
// names the field and why, and the rule book stored with the relay's data
// (`<data>/alerts/rules.json`, replaced whole by a rename so a crash leaves the old or
// the new file, never half of one).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AlertRule, AlertRuleInput } from '../../protocol/relay.ts';
import { SIGNALS } from '../../core/signals.ts';
import { BASELINE_MAX_TURNS } from '../analysis/sessionHealth.ts';
import { writeFileAtomic } from '../../node/atomicWrite.ts';

const SEVERITIES = ['info', 'warning', 'fault'];
const ACTIONS = ['prune_ok', 'recompute', 'freeze'];
/** most rules held: each is evaluated on every snapshot of every session it covers */
export const MAX_RULES = 200;
const KNOWN_KEYS = new Set(['signal', 'action', 'spread_below_baseline', 'min_severity', 'for_turns', 'session_id', 'webhook']);

/** Checks a rule as a client sent it; returns the rule's fields or an error sentence. */
export function parseRuleInput(value: unknown): { rule: AlertRuleInput & { for_turns: number } } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'a rule is a JSON object' };
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (!KNOWN_KEYS.has(k)) return { error: `unknown field ${JSON.stringify(k)}; a rule has ${[...KNOWN_KEYS].join(', ')}` };
  const kinds = ['signal', 'action', 'spread_below_baseline'].filter((k) => v[k] !== undefined);
  if (kinds.length !== 1)
    return { error: `a rule watches exactly one of signal, action, spread_below_baseline; got ${kinds.length === 0 ? 'none' : kinds.join(' and ')}` };
  const rule: AlertRuleInput & { for_turns: number } = { for_turns: 1 };
  if (v.signal !== undefined) {
    if (typeof v.signal !== 'string' || (v.signal !== 'any' && !(SIGNALS as readonly string[]).includes(v.signal))) {
      return { error: `signal must be "any" or one of ${SIGNALS.join(', ')}; got ${JSON.stringify(v.signal)}` };
    }
    rule.signal = v.signal;
  }
  if (v.action !== undefined) {
    if (typeof v.action !== 'string' || !ACTIONS.includes(v.action))
      return { error: `action must be one of ${ACTIONS.join(', ')}; got ${JSON.stringify(v.action)}` };
    rule.action = v.action as AlertRule['action'] & string;
  }
  if (v.spread_below_baseline !== undefined) {
    const b = v.spread_below_baseline as { percent?: unknown; turns?: unknown } | null;
    if (typeof b !== 'object' || b === null) return { error: 'spread_below_baseline must be an object {percent, turns}' };
    if (typeof b.percent !== 'number' || !(b.percent > 0 && b.percent <= 100)) {
      return { error: `spread_below_baseline.percent must be a number in (0, 100]; got ${JSON.stringify(b.percent)}` };
    }
    if (typeof b.turns !== 'number' || !Number.isInteger(b.turns) || b.turns < 1 || b.turns > BASELINE_MAX_TURNS) {
      return { error: `spread_below_baseline.turns must be a whole number from 1 to ${BASELINE_MAX_TURNS}; got ${JSON.stringify(b.turns)}` };
    }
    rule.spread_below_baseline = { percent: b.percent, turns: b.turns };
  }
  if (v.min_severity !== undefined) {
    if (typeof v.min_severity !== 'string' || !SEVERITIES.includes(v.min_severity)) {
      return { error: `min_severity must be one of ${SEVERITIES.join(', ')}; got ${JSON.stringify(v.min_severity)}` };
    }
    if (rule.signal === undefined) return { error: 'min_severity applies to a signal rule (signal "any" or a named signal)' };
    rule.min_severity = v.min_severity as AlertRule['min_severity'] & string;
  }
  if (v.for_turns !== undefined) {
    if (typeof v.for_turns !== 'number' || !Number.isInteger(v.for_turns) || v.for_turns < 1 || v.for_turns > 10_000) {
      return { error: `for_turns must be a whole number from 1 to 10000; got ${JSON.stringify(v.for_turns)}` };
    }
    rule.for_turns = v.for_turns;
  }
  if (v.session_id !== undefined) {
    if (typeof v.session_id !== 'string' || v.session_id === '') return { error: 'session_id must be a non-empty string (leave it out for every session)' };
    rule.session_id = v.session_id;
  }
  if (v.webhook !== undefined) {
    let url: URL | null = null;
    try {
      url = typeof v.webhook === 'string' ? new URL(v.webhook) : null;
    } catch {
      url = null;
    }
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return { error: `webhook must be an http(s) URL; got ${JSON.stringify(v.webhook)}` };
    rule.webhook = url.href;
  }
  return { rule };
}

export class RuleBook {
  private rules: AlertRule[] = [];
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, 'alerts', 'rules.json');
  }

  /** Reads the stored rules; a broken file is named and set aside, not silently lost. */
  load(log: (line: string) => void): void {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return;
    }
    try {
      const parsed = JSON.parse(text) as { rules?: AlertRule[] };
      this.rules = Array.isArray(parsed.rules) ? parsed.rules.filter((r) => typeof r.id === 'string' && !('error' in parseRuleInput(strip(r)))) : [];
    } catch (e) {
      const aside = `${this.file}.broken-${Date.now()}`;
      fs.renameSync(this.file, aside);
      log(`alert rules in ${this.file} are not JSON (${(e as Error).message}); moved to ${aside}, starting with no rules`);
    }
  }

  list(): readonly AlertRule[] {
    return this.rules;
  }

  add(input: AlertRuleInput & { for_turns: number }): AlertRule | { error: string } {
    const rule = this.create(input, this.rules.length);
    if ('error' in rule) return rule;
    // stored first: a rule that could not be saved is neither listed nor evaluated
    const next = [...this.rules, rule];
    this.save(next, 'the alert rule could not be saved, so it was not added');
    this.rules = next;
    return rule;
  }

  /** A new rule with its id, not yet held (`held`: how many rules there are). */
  create(input: AlertRuleInput & { for_turns: number }, held: number): AlertRule | { error: string } {
    if (held >= MAX_RULES) return { error: `this relay already holds ${MAX_RULES} alert rules, its limit; remove some first` };
    return { id: crypto.randomBytes(4).toString('hex'), ...input, created_at: new Date().toISOString() };
  }

  /** The rules as another relay stored them (the Redis store: alerts/sharedAlerts.ts), those that check. */
  replace(rules: AlertRule[]): void {
    this.rules = rules.filter((r) => typeof r.id === 'string' && !('error' in parseRuleInput(strip(r))));
  }

  remove(id: string): boolean {
    const next = this.rules.filter((r) => r.id !== id);
    if (next.length === this.rules.length) return false;
    this.save(next, 'the alert rule could not be removed from its file, so it stays in force');
    this.rules = next;
    return true;
  }

  /** Replaces the file with `rules`; throws `failed` (with the reason) and leaves the old file otherwise. */
  private save(rules: AlertRule[], failed: string): void {
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      // a fresh name, O_EXCL|O_NOFOLLOW, renamed: a planted `<rules>.tmp` link is never written through
      writeFileAtomic(this.file, JSON.stringify({ rules }, null, 2) + '\n');
    } catch (e) {
      throw new Error(`${failed} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message} in ${this.file})`);
    }
  }
}

function strip(r: AlertRule): Record<string, unknown> {
  const { id: _id, created_at: _created, ...rest } = r;
  return rest;
}
