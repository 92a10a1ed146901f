// `context-health alerts add|list|rm|history`: edits the alert rules of a running relay
// through its HTTP API (docs/relay.md "Alerts"); changing rules needs the relay's token,
// as ingest does (--token or CONTEXT_HEALTH_TOKEN).
import { parseArgs } from 'node:util';
import type { AlertFiring, AlertRule, AlertRuleInput } from '../protocol/relay.ts';
import { writeAll } from './output.ts';
import { escapeLines } from '../core/terminalText.ts';
import { relayBase } from './relayUrl.ts';

export const ALERTS_USAGE = `usage:
  context-health alerts add (--signal NAME|any | --action prune_ok|recompute|freeze | --spread-below PCT --baseline-turns K)
                            [--min-severity info|warning|fault] [--for N] [--session ID] [--webhook URL]
  context-health alerts list [--json]
  context-health alerts rm <rule id>
  context-health alerts history [--limit N] [--json]
common options: --url URL (default http://127.0.0.1:8787) --token T (or env CONTEXT_HEALTH_TOKEN)

A rule fires once when its condition held on --for N snapshots in a row (default 1), and again
after the condition stopped holding; --spread-below 50 --baseline-turns 20 fires when the score
spread falls below 50% of the median spread of the session's own first 20 snapshots.
Each firing is kept in the relay's alert history and POSTed to --webhook (Slack-compatible "text").`;

export async function runAlerts(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        url: { type: 'string', default: 'http://127.0.0.1:8787' },
        token: { type: 'string' },
        signal: { type: 'string' },
        action: { type: 'string' },
        'spread-below': { type: 'string' },
        'baseline-turns': { type: 'string' },
        'min-severity': { type: 'string' },
        for: { type: 'string' },
        session: { type: 'string' },
        webhook: { type: 'string' },
        limit: { type: 'string', default: '50' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return usage((e as Error).message);
  }
  if (values.help || sub === '--help' || sub === '-h') {
    await writeAll(process.stdout, ALERTS_USAGE + '\n');
    return 0;
  }
  const base = relayBase(values.url);
  if (!(base instanceof URL)) return usage(base.error);
  const token = values.token ?? (process.env.CONTEXT_HEALTH_TOKEN || null);
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(new URL(path, base), {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = { error: text.slice(0, 200) };
    }
    return { status: res.status, json };
  };
  try {
    switch (sub) {
      case 'add': {
        if (positionals.length > 0) return usage(`alerts add takes options only, got ${JSON.stringify(positionals[0])}`);
        const rule: Record<string, unknown> = {};
        if (values.signal !== undefined) rule.signal = values.signal;
        if (values.action !== undefined) rule.action = values.action;
        if (values['spread-below'] !== undefined || values['baseline-turns'] !== undefined) {
          rule.spread_below_baseline = { percent: Number(values['spread-below']?.replace(/%$/, '')), turns: Number(values['baseline-turns'] ?? '20') };
        }
        if (values['min-severity'] !== undefined) rule.min_severity = values['min-severity'];
        if (values.for !== undefined) rule.for_turns = Number(values.for);
        if (values.session !== undefined) rule.session_id = values.session;
        if (values.webhook !== undefined) rule.webhook = values.webhook;
        const { status, json } = await call('POST', 'api/alerts/rules', rule as AlertRuleInput);
        if (status !== 201) return failed(status, json);
        const made = json.rule as AlertRule;
        await writeAll(process.stdout, values.json ? JSON.stringify(made) + '\n' : escapeLines(`added rule ${made.id}: ${describe(made)}\n`));
        return 0;
      }
      case 'list': {
        const { status, json } = await call('GET', 'api/alerts/rules');
        if (status !== 200) return failed(status, json);
        const rules = json.rules as AlertRule[];
        if (values.json) await writeAll(process.stdout, JSON.stringify(rules, null, 2) + '\n');
        else await writeAll(process.stdout, escapeLines(rules.length === 0 ? 'no alert rules\n' : rules.map((r) => `${r.id}  ${describe(r)}\n`).join('')));
        return 0;
      }
      case 'rm': {
        if (positionals.length !== 1) return usage('alerts rm takes one rule id (see alerts list)');
        const { status, json } = await call('DELETE', `api/alerts/rules/${encodeURIComponent(positionals[0]!)}`);
        if (status !== 200) return failed(status, json);
        await writeAll(process.stdout, escapeLines(`removed rule ${positionals[0]!}\n`));
        return 0;
      }
      case 'history': {
        const { status, json } = await call('GET', `api/alerts/history?limit=${encodeURIComponent(values.limit)}`);
        if (status !== 200) return failed(status, json);
        const alerts = json.alerts as AlertFiring[];
        if (values.json) await writeAll(process.stdout, JSON.stringify(alerts, null, 2) + '\n');
        else await writeAll(process.stdout, escapeLines(alerts.length === 0 ? 'no alerts fired\n' : alerts.map((a) => `${a.fired_at}  ${a.text}\n`).join('')));
        return 0;
      }
      default:
        return usage(sub === undefined ? 'alerts needs a subcommand' : `unknown alerts subcommand ${JSON.stringify(sub)}`);
    }
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    process.stderr.write(escapeLines(`context-health alerts: cannot reach the relay at ${base.href}: ${cause ?? (e as Error).message}\n`));
    return 2;
  }
}

function describe(r: AlertRule): string {
  const what =
    r.signal !== undefined
      ? `signal ${r.signal}${r.min_severity === undefined ? '' : ` (≥ ${r.min_severity})`}`
      : r.action !== undefined
        ? `verdict ${r.action}`
        : `spread below ${r.spread_below_baseline!.percent}% of the first ${r.spread_below_baseline!.turns} snapshots' median`;
  const times = r.for_turns > 1 ? ` for ${r.for_turns} snapshots` : '';
  return `${what}${times} · ${r.session_id === undefined ? 'every session' : `session ${JSON.stringify(r.session_id)}`} · ${r.webhook ?? 'no webhook'}`;
}

function usage(message: string): number {
  process.stderr.write(escapeLines(`context-health alerts: ${message}\n${ALERTS_USAGE}\n`));
  return 2;
}

function failed(status: number, json: Record<string, unknown>): number {
  const why = typeof json.error === 'string' ? json.error : `status ${status}`;
  process.stderr.write(escapeLines(`context-health alerts: the relay answered ${status}: ${why}\n`));
  return status === 401 ? 3 : 1;
}
