// The alert state of relays sharing one Redis (docs/scale-out.md "Analysis and alerts on
// several relays"): the rules, the history of firings and the delivery log live in Redis, so
// any relay edits and shows them; and each firing is claimed in Redis, so that although
// every relay evaluates every rule on every session, exactly one relay records and delivers
// it, and none fires it again after a restart.
//
// Keys: ch:alerts:rules (hash: rule id → rule JSON), ch:alerts:history and
// ch:alerts:deliveries (lists, newest first, trimmed), ch:{<session>}:alerts (hash: rule id →
// `fired:<turn>` or `clear:<turn>`, the rule's run state on that session, moved only forward
// in turns), ch:alerts:attempt:<alert id>:<n> (who makes delivery attempt n).
import type { AlertDelivery, AlertFiring, AlertRule } from '../../protocol/relay.ts';
import { key, type RedisBackend } from '../redisStore.ts';

const RULES = 'ch:alerts:rules';
const HISTORY = 'ch:alerts:history';
const DELIVERIES = 'ch:alerts:deliveries';
/** firings and delivery attempts kept in Redis */
export const SHARED_LOG_LENGTH = 10_000;
/** a claimed delivery attempt is remembered this long */
const ATTEMPT_CLAIM_MS = 24 * 3600_000;

// KEYS: the session's alerts hash. ARGV: rule id, turn, 'fire' | 'clear'. Returns 1 when the
// state moved. A run is fired once: a firing is refused unless the rule's last state on the
// session is a clear at an earlier turn (every relay sees the same turns in the same order,
// so each run's end is written before a later run can begin); a clear only moves forward.
const RUN_LUA = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local turn = tonumber(ARGV[2])
if cur then
  local state, t = string.match(cur, '^(%a+):(%-?%d+)$')
  t = tonumber(t)
  if ARGV[3] == 'fire' then
    if not (state == 'clear' and t < turn) then return 0 end
  elseif t >= turn then
    return 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] == 'fire' and ('fired:' .. ARGV[2]) or ('clear:' .. ARGV[2]))
return 1
`;

type RunCommand = (k: string, rule: string, turn: number, what: 'fire' | 'clear') => Promise<number>;

export class SharedAlerts {
  private readonly run: RunCommand;

  constructor(private readonly backend: RedisBackend) {
    backend.redis.defineCommand('chAlertRun', { numberOfKeys: 1, lua: RUN_LUA });
    this.run = (backend.redis as unknown as { chAlertRun: RunCommand }).chAlertRun.bind(backend.redis);
  }

  async rules(): Promise<AlertRule[]> {
    const all = await this.backend.redis.hvals(RULES);
    const out: AlertRule[] = [];
    for (const text of all) {
      try {
        out.push(JSON.parse(text) as AlertRule);
      } catch {
        // a field not written by a relay: skipped (the rule book checks the rest)
      }
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }

  async ruleCount(): Promise<number> {
    return this.backend.redis.hlen(RULES);
  }

  async addRule(rule: AlertRule): Promise<void> {
    await this.backend.redis.hset(RULES, rule.id, JSON.stringify(rule));
    this.backend.publish({ k: 'alerts', what: 'rules' });
  }

  async removeRule(id: string): Promise<boolean> {
    const n = await this.backend.redis.hdel(RULES, id);
    if (n > 0) this.backend.publish({ k: 'alerts', what: 'rules' });
    return n > 0;
  }

  /** Whether this relay fires the rule's run on the session at `turn` (no other relay did, nor will). */
  async claimFiring(ruleId: string, sessionId: string, turn: number): Promise<boolean> {
    return (await this.run(key(sessionId, 'alerts'), ruleId, turn, 'fire')) === 1;
  }

  /** The rule's condition stopped holding on the session at `turn`: a later run may fire. */
  async clearRun(ruleId: string, sessionId: string, turn: number): Promise<void> {
    await this.run(key(sessionId, 'alerts'), ruleId, turn, 'clear');
  }

  async recordFiring(f: AlertFiring): Promise<void> {
    await this.backend.redis.lpush(HISTORY, JSON.stringify(f));
    await this.backend.redis.ltrim(HISTORY, 0, SHARED_LOG_LENGTH - 1);
    this.backend.publish({ k: 'alerts', what: 'firing', data: f });
  }

  async recordDelivery(d: AlertDelivery): Promise<void> {
    await this.backend.redis.lpush(DELIVERIES, JSON.stringify(d));
    await this.backend.redis.ltrim(DELIVERIES, 0, SHARED_LOG_LENGTH - 1);
    this.backend.publish({ k: 'alerts', what: 'delivery', data: d });
  }

  /** The newest `n` firings, oldest first. */
  async history(n: number): Promise<AlertFiring[]> {
    return parseAll<AlertFiring>(await this.backend.redis.lrange(HISTORY, 0, n - 1)).reverse();
  }

  /** The newest `n` delivery attempts, oldest first. */
  async deliveries(n: number): Promise<AlertDelivery[]> {
    return parseAll<AlertDelivery>(await this.backend.redis.lrange(DELIVERIES, 0, n - 1)).reverse();
  }

  /** Whether this relay makes delivery attempt `attempt` of the firing (one relay does each). */
  async claimAttempt(alertId: string, attempt: number): Promise<boolean> {
    return (await this.backend.redis.set(`ch:alerts:attempt:${alertId}:${attempt}`, '1', 'PX', ATTEMPT_CLAIM_MS, 'NX')) === 'OK';
  }

  /** Rules changed, a firing or a delivery, from any relay; `onReady` when events may have been missed. */
  listen(on: { rules(): void; firing(f: AlertFiring): void; delivery(d: AlertDelivery): void }, onReady: () => void): () => void {
    return this.backend.onEvent((e) => {
      if (e.k !== 'alerts') return;
      if (e.what === 'rules') on.rules();
      else if (e.what === 'firing') on.firing(e.data as AlertFiring);
      else if (e.what === 'delivery') on.delivery(e.data as AlertDelivery);
    }, onReady);
  }
}

function parseAll<T>(texts: string[]): T[] {
  const out: T[] = [];
  for (const t of texts) {
    try {
      out.push(JSON.parse(t) as T);
    } catch {
      // not written by a relay: skipped
    }
  }
  return out;
}
