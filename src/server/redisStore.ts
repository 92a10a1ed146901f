// `serve --store redis://host:port`: sessions kept in Redis Streams, so that several relay
// processes serve the same sessions (ingest on one, watch from another): docs/scale-out.md.
//
// Per session (every key of a session carries its id as a hash tag, so a Redis Cluster keeps
// a session on one shard and the append script may touch all of them):
//   ch:{<id>}:log    the stream: one entry per accepted message, entry id `<seq>-0`, field
//                    `m` = the message's bytes (compact form kept, contract §7); seq = stream order
//   ch:{<id>}:meta   hash: last_seq, last_turn, header (JSON), header_seq, span_ids (JSON: the
//                    last snapshot's ids, for the compact wire), bytes, created_at, updated_at
//   ch:{<id>}:alerts hash: per alert rule, the run state every relay agrees on (alerts/sharedAlerts.ts)
// and one sorted set ch:sessions (id → updated_at ms): the session list; one Pub/Sub channel
// ch:events on which every relay says what it changed (a session appended to or deleted, the
// alert rules, a firing, a delivery), so the others' analysis, overview and alerts follow.
//
// This store implements sessionStore.ts's contract and nothing more; the ordering rules are
// the gate's (sessionGate.ts), as for the files. The append is a script that refuses when
// another relay appended since the gate read the state (last_seq compare-and-set): the ingest
// path then decides again on the new state, so two relays never store two messages under one
// seq, nor a turn that does not increase. A message is acknowledged only after the script
// (XADD) returned. Subscribers read the stream themselves (tail): whichever relay stored a
// message, every subscriber on every relay reads it in stream order.
import { Cluster, Redis } from 'ioredis';
import type { SessionHeader } from '../core/wire.ts';
import { quoted } from './quoted.ts';
import type { Append, SessionState, SessionStore, StoredLine, TailBatch } from './sessionStore.ts';

/** one Redis server, or a Redis Cluster (`redis-cluster://host:port`, any node as the seed) */
export type Client = Redis | Cluster;

export const SESSIONS = 'ch:sessions';
/** the Pub/Sub channel of RedisEvent messages */
export const EVENTS = 'ch:events';
export const PAGE = 256;
/** how long one XREAD waits before the tail checks its session still exists */
const BLOCK_MS = 2000;

/** `turns` is no longer written (retries are found by the gate in the retry window); deleting a session removes it from older data */
export const key = (sid: string, part: 'log' | 'meta' | 'turns' | 'alerts'): string => `ch:{${encodeURIComponent(sid)}}:${part}`;

/** What one relay tells the others on ch:events (JSON). */
export type RedisEvent =
  /** session `s` was appended to, up to seq `q` */
  | { k: 'appended'; s: string; q: number }
  | { k: 'deleted'; s: string }
  /** anything else (alert rules, firings, deliveries): alerts/sharedAlerts.ts */
  | { k: 'alerts'; what: string; data?: unknown };

// KEYS: meta, log. ARGV: expected last_seq, bytes, turn ('' = header), header JSON ('' =
// none), span ids JSON ('' = none), now (ms). Returns the new seq, or -1 when last_seq is not
// the expected one (another relay appended first).
const APPEND_LUA = `
local last = tonumber(redis.call('HGET', KEYS[1], 'last_seq') or '0')
if last ~= tonumber(ARGV[1]) then return -1 end
local seq = last + 1
redis.call('XADD', KEYS[2], seq .. '-0', 'm', ARGV[2])
redis.call('HSET', KEYS[1], 'last_seq', seq, 'updated_at', ARGV[6])
redis.call('HINCRBY', KEYS[1], 'bytes', string.len(ARGV[2]) + 1)
if last == 0 then redis.call('HSET', KEYS[1], 'created_at', ARGV[6]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'last_turn', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'header', ARGV[4], 'header_seq', seq) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'span_ids', ARGV[5]) end
return seq
`;

type AppendCommand = (meta: string, log: string, ...args: (string | Buffer | number)[]) => Promise<number>;

interface RedisState extends SessionState {
  bytes: number;
  cached?: boolean;
}

const META_FIELDS = ['last_seq', 'last_turn', 'header', 'header_seq', 'span_ids', 'created_at', 'updated_at', 'bytes'] as const;

function stateOf(sid: string, v: (string | null)[]): RedisState {
  const [lastSeq, lastTurn, header, headerSeq, spanIds, createdAt, updatedAt, bytes] = v;
  return {
    id: sid,
    lastSeq: lastSeq === null || lastSeq === undefined ? 0 : Number(lastSeq),
    lastTurn: lastTurn === null || lastTurn === undefined ? null : Number(lastTurn),
    header: header === null || header === undefined ? null : (JSON.parse(header) as SessionHeader),
    headerSeq: headerSeq === null || headerSeq === undefined ? 0 : Number(headerSeq),
    lastSpanIds: spanIds === null || spanIds === undefined ? null : (JSON.parse(spanIds) as string[]),
    lastSpanIdSet: null,
    bytes: Number(bytes ?? 0),
    createdAt: Number(createdAt ?? 0),
    updatedAt: Number(updatedAt ?? 0),
  };
}

export type Entry = [id: Buffer, fields: Buffer[]];
export const seqOf = (e: Entry): number => Number(e[0].toString().split('-')[0]);
export const bytesOf = (e: Entry): Buffer => e[1][1]!;
const lineOf = (e: Entry): StoredLine => ({ seq: seqOf(e), bytes: bytesOf(e) });

export interface RedisBackend {
  store: RedisStore;
  /** the connection (commands; auto-pipelined) */
  redis: Client;
  /** tells every relay on this Redis (this one too) */
  publish(event: RedisEvent): void;
  /** what any relay published; `onReady` after each (re)subscription, when events may have been missed */
  onEvent(listener: (event: RedisEvent) => void, onReady?: () => void): () => void;
  close(): Promise<void>;
}

export async function openRedisBackend(options: { url: string; log: (line: string) => void }): Promise<RedisBackend> {
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
  redis.defineCommand('chAppend', { numberOfKeys: 2, lua: APPEND_LUA });
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
  const store = new RedisStore(redis, publish, options.log);
  await store.count();
  return {
    store,
    redis,
    publish,
    onEvent(event, ready) {
      const l = { event, ...(ready === undefined ? {} : { ready }) };
      listeners.add(l);
      subscribe();
      return () => listeners.delete(l);
    },
    async close() {
      store.closeTails();
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

async function readState(redis: Client, sid: string): Promise<RedisState | undefined> {
  const v = await redis.hmget(key(sid, 'meta'), ...META_FIELDS);
  if (v[0] === null) return undefined;
  return stateOf(sid, v);
}

export class RedisStore implements SessionStore {
  readonly name = 'redis';
  private known = 0;
  /**
   * per session: its state after this relay's last append. The gate starts from it (no read
   * per message); the append script's last_seq check catches another relay having appended
   * since, and the state is then read again.
   */
  private readonly cache = new Map<string, RedisState>();
  /** the tails' own connections (XREAD BLOCK holds one), closed with the store */
  private readonly tails = new Set<Client>();

  constructor(
    private readonly redis: Client,
    private readonly publish: (e: RedisEvent) => void,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Redis not reachable right now (ioredis reconnects by itself): /api/health answers 503
   * meanwhile, so a monitor sees the outage; unlike a deleted data directory it passes.
   */
  get lost(): string | null {
    const status = this.redis.status;
    return status === 'ready' ? null : `the Redis store is unreachable (${status}); messages are not acknowledged until it is back`;
  }

  state(sessionId: string, fresh = false): RedisState | Promise<RedisState | undefined> {
    const cached = fresh ? undefined : this.cache.get(sessionId);
    if (cached !== undefined) return cached;
    return readState(this.redis, sessionId).then(
      (s) => {
        // what the next message is decided on first (a view: may be stale by then)
        if (s === undefined) this.cache.delete(sessionId);
        else this.cache.set(sessionId, { ...s, cached: true });
        return s;
      },
      (e: unknown) => {
        this.cache.delete(sessionId);
        throw e;
      },
    );
  }

  async count(): Promise<number> {
    this.known = await this.redis.zcard(SESSIONS);
    return this.known;
  }

  knownCount(): number {
    return this.known;
  }

  async append(a: Append): Promise<number | null> {
    const sid = a.sessionId;
    let seq: number;
    try {
      seq = await (this.redis as unknown as { chAppend: AppendCommand }).chAppend(
        key(sid, 'meta'),
        key(sid, 'log'),
        a.expectedLastSeq,
        a.bytes,
        a.turn === null ? '' : String(a.turn),
        a.header === null ? '' : JSON.stringify(a.header),
        a.spanIds === undefined ? '' : JSON.stringify(a.spanIds),
        Date.now(),
      );
    } catch (e) {
      this.cache.delete(sid);
      throw e;
    }
    if (seq === -1) {
      this.cache.delete(sid);
      return null;
    }
    this.remember(a, seq);
    // the message is stored: a failure from here on only delays the session list (the next
    // message adds it again), and must not be answered "could not store"
    if (a.expectedLastSeq === 0) {
      try {
        await this.redis.zadd(SESSIONS, Date.now(), sid);
        await this.count();
      } catch (e) {
        this.log(`could not add session ${quoted(sid)} to the session list (${(e as Error).message}); its next message adds it`);
      }
    } else {
      // the list's order only; not waited for
      void this.redis.zadd(SESSIONS, Date.now(), sid).catch(() => undefined);
    }
    this.publish({ k: 'appended', s: sid, q: seq });
    return seq;
  }

  private remember(a: Append, seq: number): void {
    const now = Date.now();
    const prev = this.cache.get(a.sessionId);
    if (a.expectedLastSeq !== 0 && prev?.lastSeq !== a.expectedLastSeq) {
      this.cache.delete(a.sessionId); // decided on a state this relay no longer holds: the next message reads it
      return;
    }
    // a new session (perhaps one deleted and begun anew) starts from nothing
    const base: RedisState = (a.expectedLastSeq === 0 ? undefined : prev) ?? {
      id: a.sessionId,
      lastSeq: 0,
      lastTurn: null,
      header: null,
      headerSeq: 0,
      lastSpanIds: null,
      lastSpanIdSet: null,
      bytes: 0,
      createdAt: now,
      updatedAt: now,
    };
    const state: RedisState = { ...base, lastSeq: seq, updatedAt: now, bytes: base.bytes + a.bytes.length + 1, cached: true };
    if (a.turn !== null) state.lastTurn = a.turn;
    if (a.header !== null) {
      state.header = a.header;
      state.headerSeq = seq;
    }
    if (a.spanIds !== undefined) {
      state.lastSpanIds = a.spanIds;
      state.lastSpanIdSet = a.spanIndex ?? null;
    }
    this.cache.set(a.sessionId, state);
  }

  async *read(sessionId: string, from: number, to: number): AsyncGenerator<StoredLine[]> {
    let next = Math.max(1, from);
    while (next <= to) {
      const entries = (await this.redis.xrangeBuffer(key(sessionId, 'log'), `${next}-0`, `${to}-0`, 'COUNT', PAGE)) as Entry[];
      if (entries.length === 0) return;
      yield entries.map(lineOf);
      next = seqOf(entries[entries.length - 1]!) + 1;
    }
  }

  /** The stream from `after`: XRANGE to its end, then XREAD BLOCK on a connection of the tail's own. */
  async *tail(sessionId: string, after: number, signal: AbortSignal): AsyncGenerator<TailBatch> {
    const log = key(sessionId, 'log');
    let sent = after;
    for (;;) {
      const entries = (await this.redis.xrangeBuffer(log, `${sent + 1}-0`, '+', 'COUNT', PAGE)) as Entry[];
      if (signal.aborted) return;
      if (entries.length > 0) sent = seqOf(entries[entries.length - 1]!);
      yield { lines: entries.map(lineOf), atEnd: entries.length < PAGE };
      if (entries.length < PAGE) break;
    }
    const conn: Client = this.redis instanceof Cluster ? this.redis.duplicate() : this.redis.duplicate();
    this.tails.add(conn);
    conn.on('error', () => {});
    const stop = (): void => conn.disconnect();
    signal.addEventListener('abort', stop);
    try {
      while (!signal.aborted) {
        let reply: [Buffer, Entry[]][] | null;
        try {
          reply = (await conn.xreadBuffer('COUNT', PAGE, 'BLOCK', BLOCK_MS, 'STREAMS', log, `${sent}-0`)) as [Buffer, Entry[]][] | null;
        } catch (e) {
          if (signal.aborted) return;
          throw e;
        }
        if (signal.aborted) return;
        if (reply === null) {
          // nothing new: a session deleted (through this relay or another) ends its tails here
          if (sent > 0 && (await this.redis.exists(key(sessionId, 'meta'))) === 0) return;
          continue;
        }
        const entries = reply[0]![1];
        if (entries.length > 0) sent = seqOf(entries[entries.length - 1]!);
        yield { lines: entries.map(lineOf), atEnd: entries.length < PAGE };
      }
    } finally {
      signal.removeEventListener('abort', stop);
      this.tails.delete(conn);
      conn.disconnect();
    }
  }

  async list(): Promise<RedisState[]> {
    const ids = await this.redis.zrevrange(SESSIONS, 0, -1);
    this.known = ids.length;
    // one command per session (auto-pipelined): in a Cluster the sessions' keys are on several shards
    const rows = await Promise.all(ids.map((id) => this.redis.hmget(key(id, 'meta'), ...META_FIELDS)));
    const out: RedisState[] = [];
    rows.forEach((v, i) => {
      if (v[0] !== null) out.push(stateOf(ids[i]!, v));
    });
    return out;
  }

  async delete(sessionId: string): Promise<boolean> {
    this.cache.delete(sessionId);
    const n = await this.redis.del(key(sessionId, 'meta'), key(sessionId, 'log'), key(sessionId, 'turns'), key(sessionId, 'alerts'));
    await this.redis.zrem(SESSIONS, sessionId);
    await this.count();
    // the other relays forget its analysis and close its subscribers
    if (n > 0) this.publish({ k: 'deleted', s: sessionId });
    return n > 0;
  }

  /** A session deleted through another relay: what this one cached of it is gone. */
  forget(sessionId: string): void {
    this.cache.delete(sessionId);
  }

  closeTails(): void {
    for (const conn of this.tails) conn.disconnect();
    this.tails.clear();
  }
}
