// Alerts evaluated by the relay (docs/relay.md "Alerts"), so they fire with no browser
// open: each analysed snapshot is checked against every rule that covers its session; a
// rule fires once when its condition has held on `for_turns` snapshots in a row, and again
// only after the condition stopped holding. Every firing is appended to
// `<data>/alerts/history.jsonl` before anyone is told, and POSTed to the rule's webhook
// (webhook.ts). After a restart the stored logs are re-read with firing switched off, so
// each rule's run state is what it was and nothing fires twice. With the Redis store
// (sharedAlerts.ts) the rules, the history and the delivery log live in Redis, and each run's
// firing is claimed there: every relay evaluates, one fires.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AlertDelivery, AlertFiring, AlertRule, SeverityName } from '../../protocol/relay.ts';
import { SEVERITY_RANK, type Severity } from '../../core/signals.ts';
import type { RelayAnalysis } from '../analysis/relayAnalysis.ts';
import type { TurnEvent } from '../analysis/sessionHealth.ts';
import { RuleBook } from './rules.ts';
import type { SharedAlerts } from './sharedAlerts.ts';
import { WebhookDelivery, type RetryPolicy } from './webhook.ts';
import { WebhookAddressPolicy } from './webhookAddress.ts';

/** firings kept in memory (the file keeps them all) */
const HISTORY_IN_MEMORY = 500;
/** the tail of a history or delivery log read back at start */
const TAIL_BYTES = 4 * 1024 * 1024;

interface RunState {
  streak: number;
  fired: boolean;
}

export interface AlertsOptions {
  dataDir: string;
  /** the dashboard's address, for the links in firings (the relay's URL or its --public-url) */
  linkBase: () => string;
  retry?: Partial<RetryPolicy>;
  log: (line: string) => void;
  /** relays sharing one Redis: the alert state lives there (call start()) */
  shared?: SharedAlerts;
  /** hosts webhooks may reach although they are not public addresses (--allow-webhook-host) */
  allowWebhookHosts?: readonly string[];
}

export class Alerts {
  readonly rules: RuleBook;
  readonly delivery: WebhookDelivery;
  private readonly historyFile: string;
  private readonly history: AlertFiring[] = [];
  /** rule, session and turn of the firings read back at start: never fired again */
  private readonly firedKeys = new Set<string>();
  private readonly state = new Map<string, RunState>();
  private readonly listeners = new Set<(a: AlertFiring) => void>();
  private stopListening: (() => void) | null = null;
  private stopShared: () => void = () => {};
  private readonly shared: SharedAlerts | null;

  constructor(private readonly options: AlertsOptions) {
    const dir = path.join(options.dataDir, 'alerts');
    this.rules = new RuleBook(options.dataDir);
    this.historyFile = path.join(dir, 'history.jsonl');
    this.shared = options.shared ?? null;
    const addresses = new WebhookAddressPolicy(options.allowWebhookHosts);
    if (this.shared !== null) {
      const shared = this.shared;
      this.delivery = new WebhookDelivery(
        '',
        options.retry ?? {},
        options.log,
        {
          claim: (id, n) => shared.claimAttempt(id, n),
          record: (d) => shared.recordDelivery(d),
        },
        addresses,
      );
      return;
    }
    fs.mkdirSync(dir, { recursive: true });
    this.rules.load(options.log);
    for (const f of readTail<AlertFiring>(this.historyFile)) {
      this.remember(f);
      this.firedKeys.add(key(f.rule_id, f.session_id, f.turn));
    }
    this.delivery = new WebhookDelivery(path.join(dir, 'deliveries.jsonl'), options.retry ?? {}, options.log, null, addresses);
    // firings whose delivery had not finished when the relay stopped are delivered now
    const done = new Map<string, AlertDelivery>();
    for (const d of readTail<AlertDelivery>(this.delivery.file)) {
      done.set(d.alert_id, d);
      this.delivery.remember(d);
    }
    for (const f of this.history) {
      if (f.webhook === undefined) continue;
      const last = done.get(f.id);
      if (last === undefined || last.outcome === 'retrying') this.delivery.send(f, f.webhook, (last?.attempt ?? 0) + 1);
    }
  }

  /**
   * With the Redis store: reads the rules, the history and the delivery log from Redis,
   * follows what other relays change, and goes on with deliveries a stopped relay left
   * unfinished (each attempt is claimed, so a relay still at it and this one never both make it).
   */
  async start(): Promise<void> {
    const shared = this.shared;
    if (shared === null) return;
    const reloadRules = async (): Promise<void> => {
      try {
        this.rules.replace(await shared.rules());
      } catch (e) {
        this.options.log(`could not read the alert rules from Redis: ${(e as Error).message}`);
      }
    };
    this.stopShared = shared.listen(
      {
        rules: () => void reloadRules(),
        firing: (f) => {
          this.remember(f);
          for (const l of this.listeners) l(f);
        },
        delivery: (d) => this.delivery.remember(d),
      },
      () => void reloadRules(),
    );
    await reloadRules();
    const [history, deliveries] = await Promise.all([shared.history(HISTORY_IN_MEMORY), shared.deliveries(HISTORY_IN_MEMORY * 4)]);
    for (const f of history) this.remember(f);
    const done = new Map<string, AlertDelivery>();
    for (const d of deliveries) {
      done.set(d.alert_id, d);
      this.delivery.remember(d);
    }
    for (const f of history) {
      if (f.webhook === undefined) continue;
      const last = done.get(f.id);
      if (last === undefined || last.outcome === 'retrying') this.delivery.send(f, f.webhook, (last?.attempt ?? 0) + 1);
    }
  }

  /** Adds a rule (stored with --data, or in Redis for every relay). */
  async addRule(input: Parameters<RuleBook['add']>[0]): Promise<AlertRule | { error: string }> {
    if (this.shared === null) return this.rules.add(input);
    const rule = this.rules.create(input, await this.shared.ruleCount());
    if ('error' in rule) return rule;
    await this.shared.addRule(rule);
    this.rules.replace(await this.shared.rules());
    return rule;
  }

  /** Evaluates every analysed snapshot of `analysis` from now on. */
  attach(analysis: RelayAnalysis): void {
    this.stopListening = analysis.listen({
      turn: (e) => this.evaluate(e),
      removed: (id) => {
        for (const r of this.rules.list()) this.state.delete(key(r.id, id));
      },
    });
  }

  onFiring(listener: (a: AlertFiring) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Firings, newest first. */
  recent(limit = 50): AlertFiring[] {
    return this.history.slice(-limit).reverse();
  }

  async removeRule(id: string): Promise<boolean> {
    if (this.shared !== null) {
      if (!(await this.shared.removeRule(id))) return false;
      this.rules.replace(await this.shared.rules());
    } else if (!this.rules.remove(id)) return false;
    for (const k of [...this.state.keys()]) if (k.startsWith(`${id}\u0000`)) this.state.delete(k);
    return true;
  }

  close(): void {
    this.stopListening?.();
    this.stopShared();
    this.delivery.close();
  }

  private evaluate(e: TurnEvent): void {
    const sid = e.health.sessionId;
    for (const rule of this.rules.list()) {
      if (rule.session_id !== undefined && rule.session_id !== sid) continue;
      const k = key(rule.id, sid);
      const held = condition(rule, e);
      let st = this.state.get(k);
      if (held === null) {
        if (st !== undefined) {
          this.state.delete(k);
          // the run that fired is over, for every relay: a later run may fire again (re-reading too:
          // the relay that analysed it live may have died before saying so)
          if (st.fired && this.shared !== null) void this.shared.clearRun(rule.id, sid, e.result.turn).catch((err: unknown) => this.sharedError(err));
        }
        continue;
      }
      if (st === undefined) this.state.set(k, (st = { streak: 0, fired: false }));
      st.streak++;
      if (st.streak < rule.for_turns || st.fired) continue;
      st.fired = true;
      // re-reading a stored log after a restart: that run fired (or began) before; never again
      if (!e.live || this.firedKeys.has(key(rule.id, sid, e.result.turn))) continue;
      if (this.shared === null) this.fire(rule, e, held);
      else {
        // every relay analyses every session: the one whose claim succeeds fires
        const fire = this.fire.bind(this, rule, e, held);
        void this.shared.claimFiring(rule.id, sid, e.result.turn).then(
          (mine) => {
            if (mine) fire();
          },
          (err: unknown) => this.sharedError(err),
        );
      }
    }
  }

  private sharedError(e: unknown): void {
    this.options.log(`alert state in Redis: ${(e as Error).message}`);
  }

  private fire(rule: AlertRule, e: TurnEvent, held: { what: string; severity: SeverityName }): void {
    const sid = e.health.sessionId;
    const turn = e.result.turn;
    const link = `${this.options.linkBase()}#live=${encodeURIComponent(sid)}&turn=${turn}`;
    const what = rule.for_turns > 1 ? `${held.what} on ${rule.for_turns} snapshots in a row` : held.what;
    const name = e.health.title === null ? sid : `${e.health.title} (${sid})`;
    const firing: AlertFiring = {
      id: crypto.randomBytes(6).toString('hex'),
      rule_id: rule.id,
      session_id: sid,
      title: e.health.title,
      turn,
      seq: e.seq,
      what,
      severity: held.severity,
      fired_at: new Date().toISOString(),
      link,
      text: `[context-health] ${held.severity}: ${name}: ${what}, turn ${turn}. ${link}`,
      ...(rule.webhook === undefined ? {} : { webhook: rule.webhook }),
    };
    if (this.shared !== null) {
      // every relay (this one too) shows it when Redis says it was recorded; delivered after that
      void this.shared.recordFiring(firing).then(
        () => {
          if (rule.webhook !== undefined) this.delivery.send(firing, rule.webhook, 1);
        },
        (err: unknown) => this.sharedError(err),
      );
      return;
    }
    try {
      fs.appendFileSync(this.historyFile, JSON.stringify(firing) + '\n');
    } catch (err) {
      this.options.log(`could not record alert ${firing.id} in ${this.historyFile}: ${(err as Error).message}`);
    }
    this.remember(firing);
    for (const l of this.listeners) l(firing);
    if (rule.webhook !== undefined) this.delivery.send(firing, rule.webhook, 1);
  }

  private remember(f: AlertFiring): void {
    this.history.push(f);
    if (this.history.length > HISTORY_IN_MEMORY * 2) this.history.splice(0, this.history.length - HISTORY_IN_MEMORY);
  }
}

function key(ruleId: string, sessionId: string, turn?: number): string {
  return turn === undefined ? `${ruleId}\u0000${sessionId}` : `${ruleId}\u0000${sessionId}\u0000${turn}`;
}

const ACTION_SEVERITY: Record<string, SeverityName> = { freeze: 'fault', recompute: 'warning', prune_ok: 'info' };

/** Whether the rule's condition holds on this snapshot: what held and how severe, or null. */
export function condition(rule: AlertRule, e: TurnEvent): { what: string; severity: SeverityName } | null {
  if (rule.signal !== undefined) {
    const min = SEVERITY_RANK[(rule.min_severity ?? 'info') as Severity];
    let worst: Severity | null = null;
    const names: string[] = [];
    for (const f of e.result.findings) {
      if ((rule.signal !== 'any' && f.signal !== rule.signal) || SEVERITY_RANK[f.severity] < min) continue;
      if (!names.includes(f.signal)) names.push(f.signal);
      if (worst === null || SEVERITY_RANK[f.severity] > SEVERITY_RANK[worst]) worst = f.severity;
    }
    return worst === null ? null : { what: names.join(', '), severity: worst };
  }
  if (rule.action !== undefined) {
    return e.verdict.action === rule.action ? { what: `verdict ${rule.action}`, severity: ACTION_SEVERITY[rule.action]! } : null;
  }
  const b = rule.spread_below_baseline;
  if (b === undefined) return null;
  const spread = e.result.metrics.stdev_score;
  // the baseline is the first `turns` snapshots: judged only on the snapshots after them
  if (spread === null || e.health.turns <= b.turns) return null;
  const base = e.health.baselineSpread(b.turns);
  if (base === null || !(base > 0) || !(spread < (base * b.percent) / 100)) return null;
  return {
    what: `score spread ${spread.toFixed(4)} below ${b.percent}% of the median of its first ${b.turns} snapshots (${base.toFixed(4)})`,
    severity: 'warning',
  };
}

/** The JSON lines of the end of a file (a cut first line is skipped, a broken line too). */
function readTail<T>(file: string): T[] {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift();
    const out: T[] = [];
    for (const l of lines) {
      if (l.trim() === '') continue;
      try {
        out.push(JSON.parse(l) as T);
      } catch {
        // a line cut by a crash while it was written: it was never reported to anyone
      }
    }
    return out;
  } finally {
    fs.closeSync(fd);
  }
}
