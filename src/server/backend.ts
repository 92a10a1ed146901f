// Where sessions live, chosen once: the embedded JSONL files (store.ts, the default) or Redis
// Streams (redisStore.ts, `serve --store redis://…`, docs/scale-out.md). Everything else in the
// relay talks to the session-store contract (sessionStore.ts) and to what this module hands
// back: what differs between the two is here and in the two stores, nowhere else.
import { SharedAlerts } from './alerts/sharedAlerts.ts';
import { RedisAnalysis } from './analysis/redisAnalysis.ts';
import { RelayAnalysis } from './analysis/relayAnalysis.ts';
import { watchDataDir } from './dataDirWatch.ts';
import { lockDataDir, StartupError } from './dataLock.ts';
import { openRedisBackend, type RedisBackend } from './redisStore.ts';
import type { SessionStore } from './sessionStore.ts';
import { SessionLogStore } from './store.ts';

/** `--store redis://…` (rediss:// for TLS; redis-cluster://host:port for a Redis Cluster) selects the Redis store. */
export function isRedisUrl(store: string | undefined): boolean {
  return store !== undefined && /^rediss?(-cluster)?:\/\//.test(store);
}

export interface BackendOptions {
  dataDir: string;
  /** absent (or a path): the JSONL logs under dataDir; `redis://host:port`: Redis Streams */
  store?: string;
  fsync: boolean;
  /** how often the data directory and its lock are checked to be still there */
  dataCheckMs: number;
  log: (line: string) => void;
}

export interface Backend {
  store: SessionStore;
  /** the JSONL store (with Redis: empty, never opened) */
  files: SessionLogStore;
  /** the Redis store, when the relay uses one */
  redis: RedisBackend | null;
  /** the relay's analysis of every session (with Redis every relay analyses every session from the streams) */
  analysis(threads: number, idleMs: number | undefined): RelayAnalysis;
  /** the alert state every relay on the same Redis shares; undefined: this relay's own */
  sharedAlerts(): SharedAlerts | undefined;
  /**
   * a session's last stored turn when known without asking anyone (0: none yet), else null
   * (with Redis a conversation resumed after a restart is placed by the OTLP reorder buffer alone)
   */
  storedTurn(sessionId: string): number | null;
  /** stops watching the data directory (the files); before close, once nothing more is stored */
  stopWatching(): void;
  close(): Promise<void>;
}

/** Opens the store `options.store` names; a StartupError says why it cannot. */
export async function openBackend(options: BackendOptions): Promise<Backend> {
  const files = new SessionLogStore({ dataDir: options.dataDir, fsync: options.fsync, log: options.log });
  if (isRedisUrl(options.store)) {
    let redis: RedisBackend;
    try {
      redis = await openRedisBackend({ url: options.store!, log: options.log });
    } catch (e) {
      throw new StartupError((e as Error).message);
    }
    return {
      store: redis.store,
      files,
      redis,
      analysis: (threads, idleMs) => new RedisAnalysis(files, redis, options.log, undefined, threads, idleMs),
      sharedAlerts: () => new SharedAlerts(redis),
      storedTurn: () => null,
      stopWatching: () => {},
      close: () => redis.close(),
    };
  }
  // with Redis the data directory holds nothing (several relays may share one); the files are this relay's alone
  const unlock = lockDataDir(options.dataDir);
  try {
    await files.open();
  } catch (e) {
    unlock();
    throw e;
  }
  const stopWatching = watchDataDir(options.dataDir, files, options.dataCheckMs, options.log);
  return {
    store: files,
    files,
    redis: null,
    analysis: (threads, idleMs) => new RelayAnalysis(files, options.log, threads, idleMs),
    sharedAlerts: () => undefined,
    storedTurn: (id) => {
      const s = files.get(id);
      return s === undefined ? null : (s.lastTurn ?? 0);
    },
    stopWatching,
    close: () => {
      stopWatching();
      files.close();
      unlock();
      return Promise.resolve();
    },
  };
}
