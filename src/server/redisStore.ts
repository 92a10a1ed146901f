// `serve --store redis://host:port`: sessions kept in Redis Streams, so that several relay
// processes serve the same sessions (ingest on one, watch from another): docs/scale-out.md.
//
// Per session (every key of a session carries its id as a hash tag, so a Redis Cluster keeps
// a session on one shard and the append script may touch all of them):
//   ch:{<id>}:log    the stream: one entry per accepted message, entry id `<seq>-0`, field
//                    `m` = the message's bytes (compact form kept, contract §7); seq = stream order
//   ch:{<id>}:meta   hash: last_seq, last_turn, header (JSON), header_seq, span_ids (JSON: the
//                    last snapshot's ids, for the compact wire), created_at, updated_at
//   ch:{<id>}:turns  hash: turn → seq, to recognise a retry of any stored turn
//   ch:{<id>}:alerts hash: per alert rule, the run state every relay agrees on (alerts/sharedAlerts.ts)
// and one sorted set ch:sessions (id → updated_at ms): the session list; one Pub/Sub channel
// ch:events on which every relay says what it changed (a session appended to or deleted, the
// alert rules, a firing, a delivery), so the others' analysis, overview and alerts follow.
//
// The ordering rules are the file store's (sessionGate.ts). Each relay decides on the
// session's state as read from Redis and appends with a script that refuses when another
// relay appended in between (last_seq compare-and-set): the loser reads the new state and
// decides again, so two relays never store two messages under one seq, nor a turn that
// does not increase. A message is acknowledged only after the script (XADD) returned.
import { Cluster, Redis } from 'ioredis';

/** one Redis server, or a Redis Cluster (`redis-cluster://host:port`, any node as the seed) */
export type Client = Redis | Cluster;
import type { WebSocket } from 'ws';
import type { AckVerdict, RelaySession } from '../protocol/relay.ts';
import { jsonEqual } from '../core/equality.ts';
import type { SessionHeader } from '../core/wire.ts';
import type { IngestPort, SessionDirectory, SubscriberPort, Transcript } from './backend.ts';
import { CLOSE_BAD_SINCE, CLOSE_GONE, CLOSE_SLOW, msgFrame, tooSlow, type FanoutOptions, type FanoutStats } from './fanout.ts';
import { Backpressure } from './backpressure.ts';
import type { IngestAnalysis, IngestCounters, IngestResult } from './ingest.ts';
import { quoted, shownTitle } from './quoted.ts';
import { compactError, newSessionRefusal, sameStored, versionOneError, type Inspection, type RelayLimits } from './sessionGate.ts';
import type { Validator } from './validator.ts';

export const SESSIONS = 'ch:sessions';
/** the Pub/Sub channel of RedisEvent messages */
export const EVENTS = 'ch:events';
export const PAGE = 256;
/** how long one XREAD waits before the subscriber checks its session still exists */
const BLOCK_MS = 2000;
const BACKLOG_HIGH_WATER = 1 << 20;
/** compare-and-set attempts before a message is refused (only under heavy contention on one session) */
const MAX_ATTEMPTS = 50;

export const key = (sid: string, part: 'log' | 'meta' | 'turns' | 'alerts'): string => `ch:{${encodeURIComponent(sid)}}:${part}`;

/** What one relay tells the others on ch:events (JSON). */
export type RedisEvent =
  /** session `s` was appended to, up to seq `q` */
  | { k: 'appended'; s: string; q: number }
  | { k: 'deleted'; s: string }
  /** anything else (alert rules, firings, deliveries): alerts/sharedAlerts.ts */
  | { k: 'alerts'; what: string; data?: unknown };

// KEYS: meta, log, turns. ARGV: expected last_seq, bytes, turn ('' = header), header JSON
// ('' = none), span ids JSON ('' = none), now (ms). Returns the new seq, or -1 when
// last_seq is not the expected one (another relay appended first).
const APPEND_LUA = `
local last = tonumber(redis.call('HGET', KEYS[1], 'last_seq') or '0')
if last ~= tonumber(ARGV[1]) then return -1 end
local seq = last + 1
redis.call('XADD', KEYS[2], seq .. '-0', 'm', ARGV[2])
redis.call('HSET', KEYS[1], 'last_seq', seq, 'updated_at', ARGV[6])
redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[2]) + 1)
if last == 0 then redis.call('HSET', KEYS[1], 'created_at', ARGV[6]) end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'last_turn', ARGV[3])
  redis.call('HSET', KEYS[3], ARGV[3], seq)
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'header', ARGV[4], 'header_seq', seq) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'span_ids', ARGV[5]) end
return seq
`;

interface SessionState {
  id: string;
  lastSeq: number;
  lastTurn: number | null;
  header: SessionHeader | null;
  headerSeq: number;
  lastSpanIds: string[] | null;
  lastSpanIdSet: Set<string> | null;
  createdAt: number;
  updatedAt: number;
}

const META_FIELDS = ['last_seq', 'last_turn', 'header', 'header_seq', 'span_ids', 'created_at', 'updated_at'] as const;

function stateOf(sid: string, v: (string | null)[]): SessionState {
  const [lastSeq, lastTurn, header, headerSeq, spanIds, createdAt, updatedAt] = v;
  return {
    id: sid,
    lastSeq: lastSeq === null || lastSeq === undefined ? 0 : Number(lastSeq),
    lastTurn: lastTurn === null || lastTurn === undefined ? null : Number(lastTurn),
    header: header === null || header === undefined ? null : (JSON.parse(header) as SessionHeader),
    headerSeq: headerSeq === null || headerSeq === undefined ? 0 : Number(headerSeq),
    lastSpanIds: spanIds === null || spanIds === undefined ? null : (JSON.parse(spanIds) as string[]),
    lastSpanIdSet: null,
    createdAt: Number(createdAt ?? 0),
    updatedAt: Number(updatedAt ?? 0),
  };
}

function infoOf(s: SessionState): RelaySession {
  return {
    session_id: s.id,
    title: shownTitle(s.header?.title),
    messages: s.lastSeq,
    last_seq: s.lastSeq,
    last_turn: s.lastTurn,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}

function parse(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

export type Entry = [id: Buffer, fields: Buffer[]];
export const seqOf = (e: Entry): number => Number(e[0].toString().split('-')[0]);
export const bytesOf = (e: Entry): Buffer => e[1][1]!;

export interface RedisBackend {
  directory: RedisDirectory;
  ingest: RedisIngest;
  fanout: SubscriberPort;
  /** the connection (commands; auto-pipelined) */
  redis: Client;
  /** tells every relay on this Redis (this one too) */
  publish(event: RedisEvent): void;
  /** what any relay published; `onReady` after each (re)subscription, when events may have been missed */
  onEvent(listener: (event: RedisEvent) => void, onReady?: () => void): () => void;
  close(): Promise<void>;
}

export async function openRedisBackend(options: {
  url: string;
  limits: RelayLimits;
  validator: Validator;
  fanout: FanoutOptions;
  log: (line: string) => void;
}): Promise<RedisBackend> {
  // commands issued in one tick go out as one pipeline: sessions are appended to concurrently
  const redis: Client = isClusterUrl(options.url)
    ? new Cluster(clusterSeeds(options.url), { lazyConnect: true, enableAutoPipelining: true, redisOptions: { maxRetriesPerRequest: 3 } })
    : new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 3, enableAutoPipelining: true });
  let lastError: Error | null = null;
  redis.on('error', (e: Error) => {
    // reported per request (an ingest error names it); ioredis reconnects by itself
    lastError = e;
  });
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    const why = (lastError as Error | null)?.message ?? (e as Error).message;
    throw new Error(
      `cannot connect to Redis at ${options.url.replace(/\/\/[^@/]*@/, '//…@')}: ${why}; start redis-server there, or leave out --store to keep sessions in files`,
    );
  }
  redis.defineCommand('chAppend', { numberOfKeys: 3, lua: APPEND_LUA });
  const listeners = new Set<{ event: (e: RedisEvent) => void; ready?: () => void }>();
  // Pub/Sub holds its connection: one per relay, subscribed only once someone listens
  let sub: Client | null = null;
  const subscribe = (): void => {
    if (sub !== null) return;
    const conn: Client = redis instanceof Cluster ? redis.duplicate() : redis.duplicate();
    sub = conn;
    conn.on('error', () => {});
    conn.on('message', (_channel: string, text: string) => {
      let e: RedisEvent;
      try {
        e = JSON.parse(text) as RedisEvent;
      } catch {
        return;
      }
      for (const l of listeners) l.event(e);
    });
    // after a reconnect ioredis subscribes again, and what was said meanwhile is lost: listeners look again
    let first = true;
    conn.on('ready', () => {
      if (first) first = false;
      else for (const l of listeners) l.ready?.();
    });
    void conn.subscribe(EVENTS).then(
      () => {
        for (const l of listeners) l.ready?.();
      },
      (e: unknown) => options.log(`could not subscribe to ${EVENTS} on Redis: ${(e as Error).message}`),
    );
  };
  const publish = (event: RedisEvent): void => {
    void redis.publish(EVENTS, JSON.stringify(event)).catch(() => undefined);
  };
  const directory = new RedisDirectory(redis, publish);
  await directory.refreshCount();
  const ingest = new RedisIngest(redis, directory, options.limits, options.validator, publish, options.log);
  const fanout = new RedisFanout(redis, options.fanout);
  return {
    directory,
    ingest,
    fanout,
    redis,
    publish,
    onEvent(event, ready) {
      const l = { event, ...(ready === undefined ? {} : { ready }) };
      listeners.add(l);
      subscribe();
      return () => listeners.delete(l);
    },
    async close() {
      fanout.shutdown();
      await ingest.idle();
      sub?.disconnect();
      redis.disconnect();
    },
  };
}

/** `redis-cluster://host:port[,host:port…]`: a Redis Cluster, reached through any of these nodes. */
export function isClusterUrl(url: string): boolean {
  return /^rediss?-cluster:\/\//.test(url);
}

function clusterSeeds(url: string): { host: string; port: number }[] {
  return url
    .replace(/^rediss?-cluster:\/\//, '')
    .split(',')
    .map((hp) => {
      const at = hp.lastIndexOf(':');
      return { host: at === -1 ? hp : hp.slice(0, at), port: at === -1 ? 6379 : Number(hp.slice(at + 1)) };
    });
}

async function readState(redis: Client, sid: string): Promise<SessionState | undefined> {
  const v = await redis.hmget(key(sid, 'meta'), ...META_FIELDS);
  if (v[0] === null) return undefined;
  return stateOf(sid, v);
}

export class RedisDirectory implements SessionDirectory {
  private known = 0;

  /**
   * Redis not reachable right now (ioredis reconnects by itself): /api/health answers 503
   * meanwhile, so a monitor sees the outage; unlike a deleted data directory it passes.
   */
  get lost(): string | null {
    const status = this.redis.status;
    return status === 'ready' ? null : `the Redis store is unreachable (${status}); messages are not acknowledged until it is back`;
  }

  constructor(
    private readonly redis: Client,
    private readonly publish: (e: RedisEvent) => void,
  ) {}

  /** Every session's id, last update (ms) and bytes stored (for retention). */
  async sizes(): Promise<{ id: string; updatedAt: number; size: number }[]> {
    const flat = await this.redis.zrange(SESSIONS, '0', '-1', 'WITHSCORES');
    const ids: string[] = [];
    const at: number[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      ids.push(flat[i]!);
      at.push(Number(flat[i + 1]));
    }
    const bytes = await Promise.all(ids.map((id) => this.redis.hget(key(id, 'meta'), 'bytes')));
    return ids.map((id, i) => ({ id, updatedAt: at[i]!, size: Number(bytes[i] ?? 0) }));
  }

  count(): number {
    return this.known;
  }

  async refreshCount(): Promise<number> {
    this.known = await this.redis.zcard(SESSIONS);
    return this.known;
  }

  async list(): Promise<RelaySession[]> {
    const ids = await this.redis.zrevrange(SESSIONS, 0, -1);
    this.known = ids.length;
    // one command per session (auto-pipelined): in a Cluster the sessions' keys are on several shards
    const rows = await Promise.all(ids.map((id) => this.redis.hmget(key(id, 'meta'), ...META_FIELDS)));
    const out: RelaySession[] = [];
    rows.forEach((v, i) => {
      if (v[0] !== null) out.push(infoOf(stateOf(ids[i]!, v)));
    });
    return out;
  }

  async info(sessionId: string): Promise<RelaySession | undefined> {
    const s = await readState(this.redis, sessionId);
    return s === undefined ? undefined : infoOf(s);
  }

  async delete(sessionId: string): Promise<boolean> {
    const n = await this.redis.del(key(sessionId, 'meta'), key(sessionId, 'log'), key(sessionId, 'turns'), key(sessionId, 'alerts'));
    await this.redis.zrem(SESSIONS, sessionId);
    await this.refreshCount();
    // the other relays forget its analysis and close its subscribers
    if (n > 0) this.publish({ k: 'deleted', s: sessionId });
    return n > 0;
  }

  async transcript(sessionId: string): Promise<Transcript | undefined> {
    const s = await readState(this.redis, sessionId);
    if (s === undefined) return undefined;
    const redis = this.redis;
    const last = s.lastSeq;
    return {
      lastSeq: last,
      bytes: null,
      async *chunks() {
        let from = 1;
        while (from <= last) {
          const entries = (await redis.xrangeBuffer(key(sessionId, 'log'), `${from}-0`, `${last}-0`, 'COUNT', PAGE)) as Entry[];
          if (entries.length === 0) return;
          const parts: Buffer[] = [];
          for (const e of entries) parts.push(bytesOf(e), NEWLINE);
          yield Buffer.concat(parts);
          from = seqOf(entries[entries.length - 1]!) + 1;
        }
      },
    };
  }
}

const NEWLINE = Buffer.from('\n');

/** The analysis's verdict; a failure of the analysis leaves it null, never the stored message unacknowledged. */
async function verdictOf(get: () => ReturnType<IngestAnalysis['stored']>): Promise<AckVerdict | null> {
  try {
    return await get();
  } catch {
    return null;
  }
}

type Decision =
  | { kind: 'done'; result: IngestResult }
  | { kind: 'append'; state: SessionState | undefined; turn: number | null; header: SessionHeader | null; bytes: Buffer; spanIds: string[] | undefined };

export class RedisIngest implements IngestPort {
  readonly counters: IngestCounters = { accepted: 0, duplicates: 0, rejected: 0, bytes: 0, waiting: 0, waitingBytes: 0 };
  private readonly backpressure = new Backpressure(this.counters);
  /** every message received so far, settled (for close) */
  private tail: Promise<unknown> = Promise.resolve();
  /** per session: the last message being applied */
  private readonly chains = new Map<string, Promise<IngestResult>>();
  /**
   * per session: its state after this relay's last append. Decisions start from it (no read
   * per message); the append script's last_seq check catches another relay having appended
   * since, and the state is then read again.
   */
  private readonly cached = new Map<string, SessionState>();
  /** set by the relay unless --no-analysis: acks then carry the turn's verdict (analysis/redisAnalysis.ts) */
  analysis: IngestAnalysis | null = null;

  constructor(
    private readonly redis: Client,
    private readonly directory: RedisDirectory,
    private readonly limits: RelayLimits,
    private readonly validator: Validator,
    private readonly publish: (e: RedisEvent) => void,
    private readonly log: (line: string) => void = () => {},
  ) {}

  get saturated(): boolean {
    return this.backpressure.saturated;
  }

  onRelieved(listener: () => void): () => void {
    return this.backpressure.onRelieved(listener);
  }

  relieved(): Promise<void> {
    return this.backpressure.relieved();
  }

  idle(): Promise<void> {
    return this.tail.then(
      () => undefined,
      () => undefined,
    );
  }

  message(raw: Buffer): Promise<IngestResult> {
    this.backpressure.arrived(raw.length);
    const inspection = this.validator.inspect(raw);
    // one chain per session: a session's messages are applied in arrival order, while
    // different sessions go to Redis at once (each connection sends its acks in frame order)
    const sid = (ins: Inspection): string => (ins.kind === 'valid' ? ins.sessionId : '');
    const result = Promise.resolve(inspection).then(async (ins) => {
      const chainKey = sid(ins);
      const before = this.chains.get(chainKey) ?? Promise.resolve();
      const own = before.then(async () => {
        try {
          return await this.apply(raw, ins);
        } catch (e) {
          this.cached.delete(chainKey);
          this.counters.rejected++;
          return { ok: false, message: `the relay could not store the message: ${(e as Error).message}` } satisfies IngestResult;
        }
      });
      this.chains.set(chainKey, own);
      const r = await own;
      if (this.chains.get(chainKey) === own) this.chains.delete(chainKey);
      return r;
    });
    const done = result.then((r) => {
      this.backpressure.answered(raw.length);
      return r;
    });
    this.tail = Promise.all([this.tail, done]);
    return done;
  }

  private async apply(raw: Buffer, ins: Inspection): Promise<IngestResult> {
    if (ins.kind === 'blank') return { ok: 'blank' };
    if (ins.kind === 'error') {
      this.counters.rejected++;
      return { ok: false, message: ins.message, ...(ins.sessionId === undefined ? {} : { sessionId: ins.sessionId }) };
    }
    const sid = ins.sessionId;
    const bytes = ins.compact === null ? raw : Buffer.from(ins.compact);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const cached = attempt === 0 ? this.cached.get(sid) : undefined;
      const d = await this.decide(ins, raw, bytes, cached);
      // a refusal or a retry is decided on the state in Redis, never on this relay's cache alone
      if (d.kind === 'done' && cached !== undefined) continue;
      if (d.kind === 'done') {
        if (d.result.ok === false) this.counters.rejected++;
        else if (d.result.ok === true) {
          this.counters.duplicates++;
          const dup = d.result;
          if (this.analysis !== null) return { ...dup, verdict: await verdictOf(() => this.analysis!.duplicate(sid, dup.seq)) };
        }
        return d.result;
      }
      const seq = (await (this.redis as unknown as { chAppend: (...a: (string | Buffer | number)[]) => Promise<number> }).chAppend(
        key(sid, 'meta'),
        key(sid, 'log'),
        key(sid, 'turns'),
        d.state?.lastSeq ?? 0,
        d.bytes,
        d.turn === null ? '' : String(d.turn),
        d.header === null ? '' : JSON.stringify(d.header),
        d.spanIds === undefined ? '' : JSON.stringify(d.spanIds),
        Date.now(),
      )) as number;
      if (seq === -1) {
        this.cached.delete(sid);
        continue; // another relay appended first (or the session was deleted): decide again on the state in Redis
      }
      this.remember(sid, d, seq);
      if (d.state === undefined) {
        // the message is stored: a failure from here on only delays the session list (the next
        // message adds it again), and must not be answered "could not store"
        try {
          await this.redis.zadd(SESSIONS, Date.now(), sid);
          await this.directory.refreshCount();
        } catch (e) {
          this.log(`could not add session ${quoted(sid)} to the session list (${(e as Error).message}); its next message adds it`);
        }
      } else {
        // the list's order only; not waited for
        void this.redis.zadd(SESSIONS, Date.now(), sid).catch(() => undefined);
      }
      this.counters.accepted++;
      this.counters.bytes += d.bytes.length;
      this.publish({ k: 'appended', s: sid, q: seq });
      const ack = { ok: true, sessionId: sid, seq, turn: d.turn, duplicate: false } as const;
      // contract §7: the verdict of this turn, whichever relay stored the session's earlier messages
      if (this.analysis !== null) return { ...ack, verdict: await verdictOf(() => this.analysis!.stored(sid, seq, d.bytes, ins.parsed)) };
      return ack;
    }
    return {
      ok: false,
      sessionId: sid,
      message: `the relay could not store the message: session ${quoted(sid)} kept changing under it (${MAX_ATTEMPTS} attempts)`,
    };
  }

  private remember(sid: string, d: Extract<Decision, { kind: 'append' }>, seq: number): void {
    const now = Date.now();
    const prev = d.state;
    const state: SessionState =
      prev === undefined
        ? { id: sid, lastSeq: 0, lastTurn: null, header: null, headerSeq: 0, lastSpanIds: null, lastSpanIdSet: null, createdAt: now, updatedAt: now }
        : { ...prev };
    state.lastSeq = seq;
    state.updatedAt = now;
    if (d.turn !== null) state.lastTurn = d.turn;
    if (d.header !== null) {
      state.header = d.header;
      state.headerSeq = seq;
    }
    if (d.spanIds !== undefined) {
      state.lastSpanIds = d.spanIds;
      state.lastSpanIdSet = null;
    }
    this.cached.set(sid, state);
  }

  /** sessionGate.ts's rules, on the session's state (this relay's cached one, or read from Redis). */
  private async decide(ins: Extract<Inspection, { kind: 'valid' }>, raw: Buffer, bytes: Buffer, cached: SessionState | undefined): Promise<Decision> {
    const sid = ins.sessionId;
    const error = (message: string): Decision => ({ kind: 'done', result: { ok: false, sessionId: sid, message } });
    const state = cached ?? (await readState(this.redis, sid));
    const append: Decision = { kind: 'append', state, turn: ins.turn, header: ins.header, bytes, spanIds: ins.spanIds };
    if (state === undefined) {
      const refusal = newSessionRefusal(sid, await this.directory.refreshCount(), this.limits);
      if (refusal !== null) return error(refusal);
      if (ins.omitted !== undefined) return error(versionOneError(raw));
      return append;
    }
    if (ins.header !== null) {
      if (state.header !== null && jsonEqual(state.header, ins.header)) {
        return { kind: 'done', result: { ok: true, sessionId: sid, seq: state.headerSeq, turn: null, duplicate: true } };
      }
      if (state.header === null && state.lastTurn === null) return append;
      return error(
        state.header === null
          ? `a session header for ${quoted(sid)} must come before its first snapshot`
          : `a second, different session header for ${quoted(sid)}: a session has one header`,
      );
    }
    const turn = ins.turn!;
    if (ins.omitted !== undefined && (state.lastTurn === null || turn > state.lastTurn)) {
      const why = compactError(state, turn, ins.omitted, raw);
      if (why !== null) return error(why);
    }
    if (state.lastTurn === null || turn > state.lastTurn) return append;
    const seqText = await this.redis.hget(key(sid, 'turns'), String(turn));
    if (seqText !== null) {
      const entries = (await this.redis.xrangeBuffer(key(sid, 'log'), `${seqText}-0`, `${seqText}-0`)) as Entry[];
      const stored = entries[0] === undefined ? null : bytesOf(entries[0]);
      if (stored !== null && (stored.equals(raw) || stored.equals(bytes) || sameStored(parse(stored), parse(bytes)))) {
        return { kind: 'done', result: { ok: true, sessionId: sid, seq: Number(seqText), turn, duplicate: true } };
      }
    }
    return error(
      `turn ${turn} of session ${quoted(sid)} does not increase (the last stored snapshot is turn ${state.lastTurn}), and it is not a copy of a stored snapshot`,
    );
  }
}

interface RedisSubscriber {
  ws: WebSocket;
  sessionId: string;
  state: 'backlog' | 'live' | 'closed';
  conn: Client | null;
}

/**
 * Subscribers read the session's stream themselves, each on its own connection (XREAD
 * BLOCK holds a connection): the backlog from `since` with XRANGE, then XREAD BLOCK from
 * the last seq sent. Whichever relay stored a message, every subscriber on every relay
 * reads it from the stream, in stream order: no gap, no duplicate.
 */
class RedisFanout implements SubscriberPort {
  private readonly subs = new Set<RedisSubscriber>();
  private cutSlow = 0;

  constructor(
    private readonly redis: Client,
    private readonly options: FanoutOptions,
  ) {}

  count(): number {
    return this.subs.size;
  }

  stats(): FanoutStats {
    const s: FanoutStats = { subscribers: 0, live: 0, backlog: 0, bufferedBytes: 0, maxBufferedBytes: this.options.maxBufferedBytes, cutSlow: this.cutSlow };
    for (const sub of this.subs) {
      s.subscribers++;
      if (sub.state === 'live') s.live++;
      else if (sub.state === 'backlog') s.backlog++;
      s.bufferedBytes += sub.ws.bufferedAmount;
    }
    return s;
  }

  subscribe(ws: WebSocket, sessionId: string, since: number): RedisSubscriber {
    const sub: RedisSubscriber = { ws, sessionId, state: 'backlog', conn: null };
    this.subs.add(sub);
    ws.on('close', () => this.remove(sub));
    void this.run(sub, since).catch((e: unknown) => {
      if (sub.state !== 'closed') this.close(sub, 1011, `the relay could not read the session from Redis: ${(e as Error).message}`);
    });
    return sub;
  }

  closeAll(code: number, reason: string, sessionId?: string): void {
    for (const sub of [...this.subs]) if (sessionId === undefined || sub.sessionId === sessionId) this.close(sub, code, reason);
  }

  shutdown(): void {
    for (const sub of [...this.subs]) this.remove(sub);
  }

  private async run(sub: RedisSubscriber, since: number): Promise<void> {
    const state = await readState(this.redis, sub.sessionId);
    const lastSeq = state?.lastSeq ?? 0;
    if (sub.state === 'closed') return;
    if (since > lastSeq) {
      this.close(
        sub,
        CLOSE_BAD_SINCE,
        `since=${since} is past the last seq of session ${JSON.stringify(sub.sessionId)} (${lastSeq}): this relay's data is not the one you saw; subscribe again with since=0`,
      );
      return;
    }
    sub.ws.send(JSON.stringify({ type: 'hello', session_id: sub.sessionId, since, last_seq: lastSeq }));
    const log = key(sub.sessionId, 'log');
    let sent = since;
    // the backlog: everything stored up to last_seq at hello, in pages, each after the socket drained
    while (sent < lastSeq && sub.state === 'backlog') {
      const entries = (await this.redis.xrangeBuffer(log, `${sent + 1}-0`, `${lastSeq}-0`, 'COUNT', PAGE)) as Entry[];
      if (entries.length === 0) break; // deleted meanwhile
      let handed: Promise<void> = Promise.resolve();
      for (const e of entries) {
        if (sub.state !== 'backlog') return;
        sent = seqOf(e);
        handed = new Promise<void>((r) => sub.ws.send(msgFrame(sent, bytesOf(e)), { binary: false }, () => r()));
      }
      // the next page only once this one is on its way: the backlog never piles up in memory
      if (sub.ws.bufferedAmount > BACKLOG_HIGH_WATER) await handed;
    }
    if (sub.state !== 'backlog') return;
    sub.state = 'live';
    sub.ws.send(JSON.stringify({ type: 'caught_up', seq: sent }));
    // XREAD BLOCK holds its connection: each live subscriber has one of its own
    const conn: Client = this.redis instanceof Cluster ? this.redis.duplicate() : this.redis.duplicate();
    sub.conn = conn;
    conn.on('error', () => {});
    while (sub.state === 'live') {
      let reply: [Buffer, Entry[]][] | null;
      try {
        reply = (await conn.xreadBuffer('COUNT', PAGE, 'BLOCK', BLOCK_MS, 'STREAMS', log, `${sent}-0`)) as [Buffer, Entry[]][] | null;
      } catch (e) {
        if (sub.state !== 'live') return;
        throw e;
      }
      if (sub.state !== 'live') return;
      if (reply === null) {
        // nothing new: a session deleted through another relay ends here
        if (sent > 0 && (await this.redis.exists(key(sub.sessionId, 'meta'))) === 0) {
          this.close(sub, CLOSE_GONE, 'the session was deleted');
          return;
        }
        continue;
      }
      for (const e of reply[0]![1]) {
        const frame = msgFrame(seqOf(e), bytesOf(e));
        if (sub.ws.bufferedAmount + frame.length > this.options.maxBufferedBytes) {
          this.cutSlow++;
          this.close(sub, CLOSE_SLOW, tooSlow(this.options.maxBufferedBytes));
          return;
        }
        sub.ws.send(frame, { binary: false });
        sent = seqOf(e);
      }
    }
  }

  private close(sub: RedisSubscriber, code: number, reason: string): void {
    if (sub.state === 'closed') return;
    this.remove(sub);
    const ws = sub.ws;
    if (ws.readyState === ws.OPEN) {
      ws.send(JSON.stringify({ type: 'bye', reason }));
      // a close reason is at most 123 bytes of UTF-8
      ws.close(
        code,
        Buffer.byteLength(reason) <= 123
          ? reason
          : Buffer.from(reason)
              .subarray(0, 120)
              .toString('utf8')
              .replace(/\uFFFD$/, '') + '…',
      );
      setTimeout(() => ws.terminate(), 5000).unref();
    } else {
      ws.terminate();
    }
  }

  private remove(sub: RedisSubscriber): void {
    sub.state = 'closed';
    this.subs.delete(sub);
    sub.conn?.disconnect();
    sub.conn = null;
  }
}
