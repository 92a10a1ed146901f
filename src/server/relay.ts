// `context-health serve`: one HTTP server for the built dashboard and the relay under
// /api (docs/relay-protocol.md is the contract, docs/relay.md the operator's guide,
// docs/security.md what it refuses). This module wires the parts together: the access
// policy (accessPolicy.ts), the route table (routes.ts), the ingest connections
// (ingestConnection.ts, postIngest.ts) and the subscribers (fanout.ts).
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AccessPolicy, isLoopbackHost } from './accessPolicy.ts';
import { guardConnections, serverTimeoutOptions } from './connectionGuards.ts';
import { watchDataDir } from './dataDirWatch.ts';
import { capConnections, defaultMaxConnections } from './descriptorBudget.ts';
import { lockDataDir, StartupError } from './dataLock.ts';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connectionLimits.ts';
import { CLOSE_GONE, CLOSE_SHUTDOWN, DEFAULT_FANOUT, Fanout, type FanoutOptions } from './fanout.ts';
import { denyFraming, json, rejectUpgrade } from './httpReply.ts';
import { Ingest } from './ingest.ts';
import { OTLP_TRACES_PATH, OtlpReceiver } from './otlp/receiver.ts';
import { startHeartbeat } from './heartbeat.ts';
import { serveIngestSocket } from './ingestConnection.ts';
import { postIngest } from './postIngest.ts';
import { findRoute, INGEST_PATH, routeTable, SUBSCRIBE } from './routes.ts';
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from './sessionGate.ts';
import { serveStatic } from './static.ts';
import { SessionLogStore } from './store.ts';
import { UnfinishedBudget } from './unfinishedBudget.ts';
import { Validator } from './validator.ts';
import { FileDirectory, type IngestPort, type SessionDirectory, type SubscriberPort } from './backend.ts';
import { openRedisBackend, type RedisBackend } from './redisStore.ts';
import { Alerts } from './alerts/alerts.ts';
import type { RetryPolicy } from './alerts/webhook.ts';
import { OverviewChannel } from './analysis/overviewChannel.ts';
import { OVERVIEW_SUBSCRIBE, overviewRoutes } from './analysis/overviewRoutes.ts';
import { RelayAnalysis } from './analysis/relayAnalysis.ts';
import { RedisAnalysis } from './analysis/redisAnalysis.ts';
import { defaultAnalysisThreads } from './analysis/analysisThreads.ts';
import { SharedAlerts } from './alerts/sharedAlerts.ts';
import { redactFiring } from './alerts/redact.ts';
import { quoted } from './quoted.ts';
import { loggedPath, logText } from './logLine.ts';
import { oneAtATime } from './pipelining.ts';
import { startRetention } from './retention.ts';

/** `--store redis://…` (rediss:// for TLS; redis-cluster://host:port for a Redis Cluster) selects the Redis store. */
export function isRedisUrl(store: string | undefined): boolean {
  return store !== undefined && /^rediss?(-cluster)?:\/\//.test(store);
}

export { StartupError };

export interface RelayOptions {
  port: number;
  host: string;
  dataDir: string;
  /** ingest (and deleting a session) requires `Authorization: Bearer <token>` */
  token?: string | null;
  /** reads (session list, transcripts, subscriptions) require the token too */
  tokenForReads?: boolean;
  /** origins whose pages may use the relay besides its own (e.g. the Vite dev server's) */
  allowOrigins?: readonly string[];
  /** URLs the relay is reached at through a proxy: their host names and origins count as its own */
  publicUrls?: readonly string[];
  /** the built dashboard; null = do not serve it */
  distDir: string | null;
  fsync?: boolean;
  limits?: Partial<RelayLimits>;
  /** what one connection may cost: request size, unfinished messages, timeouts */
  connection?: Partial<ConnectionLimits>;
  fanout?: Partial<FanoutOptions>;
  /** worker threads that parse and validate large messages (default: none with the analysis on, else validator.ts defaultThreads) */
  validatorThreads?: number;
  /** how often the data directory and its lock are checked to be still there (default 1 s) */
  dataCheckMs?: number;
  /** how often every WebSocket is pinged; one that misses a ping is dropped (default 30 s) */
  heartbeatMs?: number;
  /** OTLP receiver (POST /v1/traces): how long spans wait for earlier ones (default 2000 ms) */
  otlpReorderMs?: number;
  /**
   * where sessions live: absent (or a path) = the JSONL logs under dataDir; `redis://host:port`
   * = Redis Streams, shared by every relay given the same URL (redisStore.ts, docs/scale-out.md)
   */
  store?: string;
  /** analyse every session as it arrives, acks carry the verdict, alerts (default true; --no-analysis) */
  analysis?: boolean;
  /** worker threads running the sessions' Engines (0: the main thread; default 1 with 2 cores or more: analysisThreads.ts) */
  analysisThreads?: number;
  /** --analysis-idle: a session idle this long has its engine dropped from its thread, rebuilt from the log on its next line (default 5 min) */
  analysisIdleMs?: number;
  /** --retain: delete sessions with no message for this long */
  retainMs?: number | null;
  /** --retain-bytes: delete the least recently updated sessions while the logs exceed this */
  retainBytes?: number | null;
  /** how often retention looks, and how recent a message keeps a session from the byte budget (tests shorten them) */
  retention?: { everyMs?: number; liveMs?: number };
  /** hosts alert webhooks may reach although they are not public addresses (--allow-webhook-host) */
  allowWebhookHosts?: readonly string[];
  /** alert webhook retries (tests shorten them) */
  alertRetry?: Partial<RetryPolicy>;
  /** diagnostics (recovered logs, refused requests); default: stderr */
  log?: (line: string) => void;
}

export interface Relay {
  /** `http://host:port/`, with the port actually bound */
  url: string;
  port: number;
  /** the JSONL store (empty and unused with `store: redis://…`) */
  store: SessionLogStore;
  /** the sessions, whichever store holds them */
  directory: SessionDirectory;
  fanout: SubscriberPort;
  ingest: IngestPort;
  /** the Redis store, when the relay uses one */
  redis: RedisBackend | null;
  /** null with --no-analysis (with Redis: a RedisAnalysis, every relay analysing every session) */
  analysis: RelayAnalysis | null;
  alerts: Alerts | null;
  close(): Promise<void>;
}

export async function startRelay(options: RelayOptions): Promise<Relay> {
  const token = options.token ?? null;
  if (!isLoopbackHost(options.host) && token === null) {
    throw new StartupError(
      `refusing to listen on ${options.host} without a token: anyone who can reach it could write sessions. ` +
        'Set --token T (or CONTEXT_HEALTH_TOKEN), or keep the default --host 127.0.0.1.',
    );
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`context-health: ${logText(line)}\n`));
  const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS, ...options.limits };
  const connection: ConnectionLimits & { maxConnections: number } = {
    ...DEFAULT_CONNECTION_LIMITS,
    ...options.connection,
    maxConnections: options.connection?.maxConnections ?? defaultMaxConnections(),
  };
  const unfinished = new UnfinishedBudget(connection);
  const fanoutOptions: FanoutOptions = { ...DEFAULT_FANOUT, ...options.fanout };
  await fs.promises.mkdir(options.dataDir, { recursive: true });
  let boundPort = options.port;
  const access = new AccessPolicy({
    host: options.host,
    port: () => boundPort,
    token,
    tokenForReads: options.tokenForReads ?? false,
    allowOrigins: options.allowOrigins ?? [],
    publicUrls: options.publicUrls ?? [],
  });
  const useRedis = isRedisUrl(options.store);
  // with Redis the data directory holds nothing: several relays may share one
  const unlock = useRedis ? () => {} : lockDataDir(options.dataDir);
  const store = new SessionLogStore({ dataDir: options.dataDir, fsync: options.fsync ?? false, log });
  // with the analysis on, a message inspected on a thread reaches the analysis unparsed, and
  // the main thread parses and validates it again: worker threads then add work (validator.ts)
  // (with analysis threads the main thread does not hand its value on: validator.ts's default then)
  const analysisThreads = options.analysisThreads ?? defaultAnalysisThreads();
  const analysed = options.analysis !== false && !useRedis && analysisThreads === 0;
  const validator = new Validator(limits, options.validatorThreads ?? (analysed ? 0 : undefined), log);
  validator.keepValue = analysed;
  let redis: RedisBackend | null = null;
  try {
    if (useRedis) redis = await openRedisBackend({ url: options.store!, limits, validator, fanout: fanoutOptions, log });
    else await store.open();
  } catch (e) {
    unlock();
    void validator.close();
    throw useRedis ? new StartupError((e as Error).message) : e;
  }
  const stopDataCheck = useRedis ? () => {} : watchDataDir(options.dataDir, store, options.dataCheckMs ?? 1000, log);
  const fileFanout = new Fanout(store, fanoutOptions);
  const fanout: SubscriberPort = redis?.fanout ?? fileFanout;
  const fileIngest = redis === null ? new Ingest(store, fileFanout, limits, validator) : null;
  const ingest: IngestPort = redis?.ingest ?? fileIngest!;
  const directory: SessionDirectory = redis?.directory ?? new FileDirectory(store);
  const startedAt = Date.now();
  // contract §7 verdict in the acknowledgement, the overview and the alerts (src/server/analysis)
  // with Redis every relay analyses every session from the streams (docs/scale-out.md)
  const analysis =
    options.analysis === false
      ? null
      : redis === null
        ? new RelayAnalysis(store, log, analysisThreads, options.analysisIdleMs)
        : new RedisAnalysis(store, redis, log, undefined, analysisThreads, options.analysisIdleMs);
  const linkBase = (): string => options.publicUrls?.[0] ?? `http://${shownHostOf(options.host)}:${boundPort}/`;
  const alerts =
    analysis === null
      ? null
      : new Alerts({
          dataDir: options.dataDir,
          linkBase,
          log,
          ...(options.alertRetry ? { retry: options.alertRetry } : {}),
          allowWebhookHosts: options.allowWebhookHosts ?? [],
          ...(redis === null ? {} : { shared: new SharedAlerts(redis) }),
        });
  // the overview channel is read without the token: its firings never carry a webhook's path
  const overview = analysis === null ? null : new OverviewChannel(analysis, () => (alerts?.recent() ?? []).map(redactFiring));
  if (analysis !== null) {
    if (fileIngest !== null) fileIngest.analysis = analysis;
    if (redis !== null) redis.ingest.analysis = analysis;
    try {
      await alerts?.start();
    } catch (e) {
      void validator.close();
      analysis.close();
      void redis?.close();
      throw new StartupError(`cannot read the alert state from Redis: ${(e as Error).message}`);
    }
    alerts?.attach(analysis);
    if (overview !== null) alerts?.onFiring((a) => overview.alert(redactFiring(a)));
    void analysis.start();
  }
  const removeSession = (id: string, why: string): void => {
    fanout.closeAll(CLOSE_GONE, 'the session was deleted', id);
    const deleted = redis === null ? Promise.resolve(store.delete(id)) : redis.directory.delete(id);
    void deleted.then(
      (was) => {
        analysis?.forget(id);
        if (was) log(`deleted session ${quoted(id)}: ${why}`);
      },
      (e: unknown) => log(`could not delete session ${quoted(id)}: ${(e as Error).message}`),
    );
  };
  const stopRetention = startRetention(
    redis === null ? store : () => redis.directory.sizes(),
    { retainMs: options.retainMs ?? null, retainBytes: options.retainBytes ?? null, ...options.retention },
    removeSession,
    log,
  );

  const ingestSockets = new Set<WebSocket>();
  // UTF-8 is checked once, by the gate's decoder: a bad frame gets an error, not a closed connection
  const wssIngest = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(2 * limits.maxMessageBytes, 1 << 20),
    perMessageDeflate: false,
    skipUTF8Validation: true,
  });
  const wssSubscribe = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  const heartbeat = startHeartbeat(() => [...wssIngest.clients, ...wssSubscribe.clients], options.heartbeatMs ?? 30_000);

  const health = (): { status: number; body: unknown } => {
    const mem = process.memoryUsage();
    return {
      status: directory.lost === null ? 200 : 503,
      body: {
        ok: directory.lost === null,
        ...(directory.lost === null ? {} : { problem: directory.lost }),
        uptime_s: Math.round((Date.now() - startedAt) / 1000),
        store: useRedis ? 'redis' : 'files',
        sessions: directory.count(),
        ingest_connections: ingestSockets.size,
        subscribers: fanout.stats(),
        ingest: ingest.counters,
        limits: { ...limits, ...connection },
        unfinished: unfinished.stats(),
        token_required: token !== null,
        fsync: options.fsync ?? false,
        analysis:
          analysis === null ? null : { ...analysis.stats(), parked_sessions: analysis.threads?.parkedCount ?? 0, overview_clients: overview?.size ?? 0 },
        memory: { rss: mem.rss, heap_used: mem.heapUsed, external: mem.external, array_buffers: mem.arrayBuffers },
      },
    };
  };
  const otlp = new OtlpReceiver({
    ingest,
    access,
    maxBodyBytes: limits.maxMessageBytes,
    maxSpans: limits.maxSpansPerSnapshot,
    reorderMs: options.otlpReorderMs,
    // with Redis the relay does not know a session's last turn synchronously: a conversation
    // resumed after a restart is placed by the reorder buffer alone (docs/scale-out.md)
    storedTurn: (id) => (redis !== null || store.get(id) === undefined ? null : (store.get(id)!.lastTurn ?? 0)),
    log,
  });
  const routes = routeTable({
    directory,
    fanout,
    health,
    log,
    postIngest: (req, res) => postIngest(req, res, { ingest, limits, connection, unfinished }),
    onDeleted: (id) => analysis?.forget(id),
    extra: overviewRoutes(analysis, alerts, (req, url) => access.check(req, url, 'write') === null),
  });

  const server = http.createServer(
    serverTimeoutOptions(connection),
    oneAtATime((req, res) => {
      void handleHttp(req, res).catch((e: unknown) => {
        log(`error serving ${req.method ?? ''} ${loggedPath(req.url)}: ${(e as Error).message}`);
        if (!res.headersSent) json(res, 500, { error: (e as Error).message });
        else res.destroy();
      });
    }),
  );
  server.keepAliveTimeout = 65_000;
  const guards = guardConnections(server, connection, unfinished);
  capConnections(server, connection.maxConnections, log);

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    denyFraming(res);
    const url = new URL(req.url ?? '/', 'http://relay');
    const p = url.pathname;
    if (p === OTLP_TRACES_PATH) return otlp.serve(req, res, url);
    if (!p.startsWith('/api/') && p !== '/api') return serveStatic(options.distDir, req, res, p);
    // a foreign page learns nothing, not even which routes exist
    const foreign = access.check(req, url, 'open');
    if (foreign !== null) return json(res, foreign.status, { error: foreign.message }, foreign.headers);
    const found = findRoute(routes, req.method ?? 'GET', p);
    if (!('route' in found)) return json(res, found.status, { error: found.error }, found.allow === undefined ? {} : { allow: found.allow });
    const refused = access.check(req, url, found.route.access);
    if (refused !== null) return json(res, refused.status, { error: refused.message }, refused.headers);
    return found.route.handle({ req, res, url, sessionId: found.sessionId });
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://relay');
    const refused = access.check(req, url, url.pathname === INGEST_PATH ? 'write' : 'read');
    if (refused !== null) return rejectUpgrade(socket, refused.status, refused.message, refused.headers);
    if (url.pathname === INGEST_PATH) {
      wssIngest.handleUpgrade(req, socket, head, (ws) => {
        heartbeat.watch(ws);
        ingestSockets.add(ws);
        const holder = unfinished.holder(req.socket.remoteAddress ?? '');
        guards.watchMessages(holder, ws);
        ws.on('close', () => ingestSockets.delete(ws));
        serveIngestSocket(ws, socket, holder, ingest, log);
      });
      return;
    }
    if (url.pathname === OVERVIEW_SUBSCRIBE) {
      if (overview === null) return rejectUpgrade(socket, 404, 'this relay runs without analysis (--no-analysis): there is no overview');
      wssSubscribe.handleUpgrade(req, socket, head, (ws) => {
        heartbeat.watch(ws);
        overview.accept(ws);
      });
      return;
    }
    const m = SUBSCRIBE.exec(url.pathname);
    if (m === null) return rejectUpgrade(socket, 404, `no WebSocket route ${url.pathname}`);
    let sessionId: string;
    try {
      sessionId = decodeURIComponent(m[1]!);
    } catch {
      return rejectUpgrade(socket, 404, `no WebSocket route ${url.pathname}`);
    }
    const sinceText = url.searchParams.get('since') ?? '0';
    const since = /^\d{1,15}$/.test(sinceText) ? Number(sinceText) : Number.NaN;
    if (!Number.isSafeInteger(since)) return rejectUpgrade(socket, 400, `since must be a whole number ≥ 0, got ${JSON.stringify(sinceText)}`);
    wssSubscribe.handleUpgrade(req, socket, head, (ws) => {
      heartbeat.watch(ws);
      ws.on('error', () => ws.terminate());
      // subscribers only listen; anything they send is ignored
      fanout.subscribe(ws, sessionId, since);
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      stopDataCheck();
      guards.stop();
      unlock();
      store.close();
      void validator.close();
      analysis?.close();
      void redis?.close();
      if (e.code === 'EADDRINUSE')
        reject(new StartupError(`port ${options.port} on ${options.host} is already in use (another context-health serve?); choose another with --port`));
      else if (e.code === 'EADDRNOTAVAIL') reject(new StartupError(`cannot listen on ${options.host}: no such address on this machine`));
      else reject(e);
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (boundPort = (server.address() as AddressInfo).port);
  const shownHost = shownHostOf(options.host);

  let closing: Promise<void> | null = null;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    store,
    directory,
    fanout,
    ingest,
    redis,
    analysis,
    alerts,
    close() {
      closing ??= (async () => {
        heartbeat.stop();
        stopRetention();
        overview?.close(CLOSE_SHUTDOWN, 'the relay is shutting down');
        alerts?.close();
        analysis?.close();
        stopDataCheck();
        guards.stop();
        fanout.closeAll(CLOSE_SHUTDOWN, 'the relay is shutting down; reconnect with since=<the last seq you processed>');
        for (const ws of ingestSockets) ws.close(CLOSE_SHUTDOWN, 'the relay is shutting down');
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        const timer = setTimeout(() => {
          server.closeAllConnections();
          for (const ws of ingestSockets) ws.terminate();
          for (const ws of wssSubscribe.clients) ws.terminate();
        }, 500);
        await closed;
        clearTimeout(timer);
        await otlp.close();
        await redis?.close();
        await validator.close();
        store.close();
        unlock();
      })();
      return closing;
    },
  };
}

function shownHostOf(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}
