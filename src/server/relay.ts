// `context-health serve`: one HTTP server for the built dashboard and the relay under
// /api (docs/relay-protocol.md is the contract, docs/relay.md the operator's guide,
// docs/security.md what it refuses). This module wires the parts together: the access
// policy (accessPolicy.ts), the route table (routes.ts), the ingest connections
// (ingestConnection.ts, postIngest.ts), the one ingest path (ingest.ts) and the subscribers
// (fanout.ts), on the store backend.ts chose: nothing here asks which store it is.
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { AccessPolicy, isLoopbackHost } from './accessPolicy.ts';
import { openBackend, type Backend } from './backend.ts';
import { guardConnections, serverTimeoutOptions } from './connectionGuards.ts';
import { capConnections, ConnectionCap, defaultMaxConnections, LISTEN_BACKLOG } from './descriptorBudget.ts';
import { StartupError } from './dataLock.ts';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connectionLimits.ts';
import { CLOSE_GONE, CLOSE_SHUTDOWN, DEFAULT_FANOUT, Fanout, type FanoutOptions } from './fanout.ts';
import { denyFraming, json, rejectUpgrade } from './httpReply.ts';
import { Ingest } from './ingest.ts';
import { OTLP_TRACES_PATH, OtlpReceiver } from './otlp/receiver.ts';
import { startHeartbeat, type Heartbeat } from './heartbeat.ts';
import { serveIngestSocket } from './ingestConnection.ts';
import { postIngest } from './postIngest.ts';
import { findRoute, INGEST_PATH, routeTable, SUBSCRIBE, type Route } from './routes.ts';
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from './sessionGate.ts';
import type { SessionStore } from './sessionStore.ts';
import { serveStatic } from './static.ts';
import type { SessionLogStore } from './store.ts';
import { UnfinishedBudget } from './unfinishedBudget.ts';
import { Validator } from './validator.ts';
import type { RedisBackend } from './redisStore.ts';
import { Alerts } from './alerts/alerts.ts';
import type { RetryPolicy } from './alerts/webhook.ts';
import { OverviewChannel } from './analysis/overviewChannel.ts';
import { OVERVIEW_SUBSCRIBE, overviewRoutes } from './analysis/overviewRoutes.ts';
import type { RelayAnalysis } from './analysis/relayAnalysis.ts';
import { defaultAnalysisThreads } from './analysis/analysisThreads.ts';
import { redactFiring } from './alerts/redact.ts';
import { quoted } from './quoted.ts';
import { loggedPath, logText } from './logLine.ts';
import { oneAtATime } from './pipelining.ts';
import { startRetention } from './retention.ts';

export { isRedisUrl } from './backend.ts';
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
  /** OTLP receiver: request bytes read and decoded at once, past which an export is answered 503 (default 2 × maxMessageBytes) */
  otlpDecodeBudgetBytes?: number;
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
  /** more /api routes, under the same access policy (serve's local sessions: localSessions/localRoutes.ts) */
  extraRoutes?: Route[];
}

export interface Relay {
  /** `http://host:port/`, with the port actually bound */
  url: string;
  port: number;
  /** the sessions, whichever store holds them (sessionStore.ts) */
  store: SessionStore;
  /** the JSONL store (empty and unused with `store: redis://…`) */
  files: SessionLogStore;
  fanout: Fanout;
  ingest: Ingest;
  /** the Redis store, when the relay uses one */
  redis: RedisBackend | null;
  /** null with --no-analysis (with Redis: a RedisAnalysis, every relay analysing every session) */
  analysis: RelayAnalysis | null;
  alerts: Alerts | null;
  close(): Promise<void>;
}

/** The options with their defaults, as every part of the relay reads them. */
interface Settings {
  token: string | null;
  log: (line: string) => void;
  limits: RelayLimits;
  connection: ConnectionLimits & { maxConnections: number };
  fanout: FanoutOptions;
}

function settingsOf(options: RelayOptions): Settings {
  const token = options.token ?? null;
  if (!isLoopbackHost(options.host) && token === null) {
    throw new StartupError(
      `refusing to listen on ${options.host} without a token: anyone who can reach it could write sessions. ` +
        'Set --token T (or CONTEXT_HEALTH_TOKEN), or keep the default --host 127.0.0.1.',
    );
  }
  return {
    token,
    log: options.log ?? ((line: string) => process.stderr.write(`context-health: ${logText(line)}\n`)),
    limits: { ...DEFAULT_RELAY_LIMITS, ...options.limits },
    connection: { ...DEFAULT_CONNECTION_LIMITS, ...options.connection, maxConnections: options.connection?.maxConnections ?? defaultMaxConnections() },
    fanout: { ...DEFAULT_FANOUT, ...options.fanout },
  };
}

/** The store, the ingest path, the fan-out, and (unless --no-analysis) the analysis, alerts and overview on them. */
interface Sessions {
  backend: Backend;
  validator: Validator;
  ingest: Ingest;
  fanout: Fanout;
  analysis: RelayAnalysis | null;
  alerts: Alerts | null;
  overview: OverviewChannel | null;
}

async function openSessions(options: RelayOptions, settings: Settings, linkBase: () => string): Promise<Sessions> {
  const { log, limits } = settings;
  // with the analysis on, a message inspected on a thread reaches the analysis unparsed, and
  // the main thread parses and validates it again: worker threads then add work (validator.ts)
  // (with analysis threads the main thread does not hand its value on: validator.ts's default then)
  const analysisThreads = options.analysisThreads ?? defaultAnalysisThreads();
  const analysed = options.analysis !== false && analysisThreads === 0;
  const validator = new Validator(limits, options.validatorThreads ?? (analysed ? 0 : undefined), log);
  validator.keepValue = analysed;
  let backend: Backend;
  try {
    backend = await openBackend({
      dataDir: options.dataDir,
      store: options.store,
      fsync: options.fsync ?? false,
      dataCheckMs: options.dataCheckMs ?? 1000,
      log,
    });
  } catch (e) {
    void validator.close();
    throw e;
  }
  const ingest = new Ingest(backend.store, limits, validator);
  const fanout = new Fanout(backend.store, settings.fanout);
  const sessions: Sessions = { backend, validator, ingest, fanout, analysis: null, alerts: null, overview: null };
  if (options.analysis === false) return sessions;
  // contract §7 verdict in the acknowledgement, the overview and the alerts (src/server/analysis)
  const analysis = backend.analysis(analysisThreads, options.analysisIdleMs);
  const shared = backend.sharedAlerts();
  const alerts = new Alerts({
    dataDir: options.dataDir,
    linkBase,
    log,
    ...(options.alertRetry ? { retry: options.alertRetry } : {}),
    allowWebhookHosts: options.allowWebhookHosts ?? [],
    ...(shared === undefined ? {} : { shared }),
  });
  // the overview channel is read without the token: its firings never carry a webhook's path
  const overview = new OverviewChannel(analysis, () => alerts.recent().map(redactFiring));
  ingest.analysis = analysis;
  try {
    await alerts.start();
  } catch (e) {
    void validator.close();
    analysis.close();
    void backend.close();
    throw new StartupError(`cannot read the alert state from Redis: ${(e as Error).message}`);
  }
  alerts.attach(analysis);
  alerts.onFiring((a) => overview.alert(redactFiring(a)));
  void analysis.start();
  return { ...sessions, analysis, alerts, overview };
}

/** `serve --retain` / `--retain-bytes`: a session deleted as DELETE /api/sessions/<id> deletes it. */
function retainSessions(options: RelayOptions, s: Sessions, log: (line: string) => void): () => void {
  const removeSession = (id: string, why: string): void => {
    s.fanout.closeAll(CLOSE_GONE, 'the session was deleted', id);
    void Promise.resolve()
      .then(() => s.backend.store.delete(id))
      .then(
        (was) => {
          s.analysis?.forget(id);
          if (was) log(`deleted session ${quoted(id)}: ${why}`);
        },
        (e: unknown) => log(`could not delete session ${quoted(id)}: ${(e as Error).message}`),
      );
  };
  return startRetention(
    s.backend.store,
    { retainMs: options.retainMs ?? null, retainBytes: options.retainBytes ?? null, ...options.retention },
    removeSession,
    log,
  );
}

/** What /api/health answers. */
function healthOf(
  options: RelayOptions,
  settings: Settings,
  s: Sessions,
  sockets: Sockets,
  unfinished: UnfinishedBudget,
  cap: ConnectionCap,
  startedAt: number,
): () => { status: number; body: unknown } {
  const store = s.backend.store;
  return () => {
    const mem = process.memoryUsage();
    const lost = store.lost;
    return {
      status: lost === null ? 200 : 503,
      body: {
        ok: lost === null,
        ...(lost === null ? {} : { problem: lost }),
        uptime_s: Math.round((Date.now() - startedAt) / 1000),
        store: store.name,
        sessions: store.knownCount(),
        ingest_connections: sockets.ingestSockets.size,
        connections: cap.stats(),
        subscribers: s.fanout.stats(),
        ingest: s.ingest.counters,
        limits: { ...settings.limits, ...settings.connection },
        unfinished: unfinished.stats(),
        token_required: settings.token !== null,
        fsync: options.fsync ?? false,
        analysis:
          s.analysis === null
            ? null
            : { ...s.analysis.stats(), parked_sessions: s.analysis.threads?.parkedCount ?? 0, overview_clients: s.overview?.size ?? 0 },
        memory: { rss: mem.rss, heap_used: mem.heapUsed, external: mem.external, array_buffers: mem.arrayBuffers },
      },
    };
  };
}

/** The WebSocket servers (harnesses; dashboards and the overview) and their heartbeat. */
interface Sockets {
  ingestSockets: Set<WebSocket>;
  wssIngest: WebSocketServer;
  wssSubscribe: WebSocketServer;
  heartbeat: Heartbeat;
}

function openSockets(options: RelayOptions, limits: RelayLimits): Sockets {
  // UTF-8 is checked once, by the gate's decoder: a bad frame gets an error, not a closed connection
  const wssIngest = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(2 * limits.maxMessageBytes, 1 << 20),
    perMessageDeflate: false,
    skipUTF8Validation: true,
  });
  const wssSubscribe = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  const heartbeat = startHeartbeat(() => [...wssIngest.clients, ...wssSubscribe.clients], options.heartbeatMs ?? 30_000);
  return { ingestSockets: new Set(), wssIngest, wssSubscribe, heartbeat };
}

/** The WebSocket upgrades: /api/ingest (harnesses), the overview, /api/sessions/<id>/subscribe (dashboards). */
function upgradeHandler(
  access: AccessPolicy,
  sockets: Sockets,
  s: Sessions,
  unfinished: UnfinishedBudget,
  guards: ReturnType<typeof guardConnections>,
  log: (line: string) => void,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { wssIngest, wssSubscribe, heartbeat, ingestSockets } = sockets;
  return (req, socket, head) => {
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
        serveIngestSocket(ws, socket, holder, s.ingest, log);
      });
      return;
    }
    if (url.pathname === OVERVIEW_SUBSCRIBE) {
      const overview = s.overview;
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
      s.fanout.subscribe(ws, sessionId, since);
    });
  };
}

/** The HTTP requests: OTLP, the dashboard's files, the /api routes behind the access policy. */
function requestHandler(
  options: RelayOptions,
  access: AccessPolicy,
  otlp: OtlpReceiver,
  routes: ReturnType<typeof routeTable>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
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
  };
}

/** Listens; on failure everything opened so far is closed and the reason is a StartupError where the operator can act. */
function listen(server: http.Server, options: RelayOptions, cleanup: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      cleanup();
      if (e.code === 'EADDRINUSE')
        reject(new StartupError(`port ${options.port} on ${options.host} is already in use (another context-health serve?); choose another with --port`));
      else if (e.code === 'EADDRNOTAVAIL') reject(new StartupError(`cannot listen on ${options.host}: no such address on this machine`));
      else reject(e);
    };
    server.once('error', onError);
    server.listen(options.port, options.host, LISTEN_BACKLOG, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export async function startRelay(options: RelayOptions): Promise<Relay> {
  const settings = settingsOf(options);
  const { log, limits, connection } = settings;
  const unfinished = new UnfinishedBudget(connection);
  await fs.promises.mkdir(options.dataDir, { recursive: true });
  let boundPort = options.port;
  const access = new AccessPolicy({
    host: options.host,
    port: () => boundPort,
    token: settings.token,
    tokenForReads: options.tokenForReads ?? false,
    allowOrigins: options.allowOrigins ?? [],
    publicUrls: options.publicUrls ?? [],
  });
  const linkBase = (): string => options.publicUrls?.[0] ?? `http://${shownHostOf(options.host)}:${boundPort}/`;
  const s = await openSessions(options, settings, linkBase);
  const { backend, fanout, ingest, analysis, alerts, overview, validator } = s;
  const stopRetention = retainSessions(options, s, log);
  const sockets = openSockets(options, limits);
  const cap = new ConnectionCap(connection.maxConnections);
  const health = healthOf(options, settings, s, sockets, unfinished, cap, Date.now());
  const otlp = new OtlpReceiver({
    ingest,
    access,
    maxBodyBytes: limits.maxMessageBytes,
    maxSpans: limits.maxSpansPerSnapshot,
    reorderMs: options.otlpReorderMs,
    decodeBudgetBytes: options.otlpDecodeBudgetBytes ?? 2 * limits.maxMessageBytes,
    storedTurn: (id) => backend.storedTurn(id),
    log,
  });
  const routes = routeTable({
    store: backend.store,
    fanout,
    health,
    log,
    postIngest: (req, res) => postIngest(req, res, { ingest, limits, connection, unfinished }),
    onDeleted: (id) => analysis?.forget(id),
    extra: [...overviewRoutes(analysis, alerts, (req, url) => access.check(req, url, 'write') === null), ...(options.extraRoutes ?? [])],
  });
  const handleHttp = requestHandler(options, access, otlp, routes);
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
  capConnections(server, cap, log);
  server.on('upgrade', upgradeHandler(access, sockets, s, unfinished, guards, log));
  await listen(server, options, () => {
    guards.stop();
    void validator.close();
    analysis?.close();
    void backend.close();
  });
  const port = (boundPort = (server.address() as AddressInfo).port);
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shownHostOf(options.host)}:${port}/`,
    port,
    store: backend.store,
    files: backend.files,
    fanout,
    ingest,
    redis: backend.redis,
    analysis,
    alerts,
    close() {
      closing ??= (async () => {
        sockets.heartbeat.stop();
        stopRetention();
        overview?.close(CLOSE_SHUTDOWN, 'the relay is shutting down');
        alerts?.close();
        analysis?.close();
        backend.stopWatching();
        guards.stop();
        fanout.closeAll(CLOSE_SHUTDOWN, 'the relay is shutting down; reconnect with since=<the last seq you processed>');
        await closeServer(server, sockets);
        await otlp.close();
        await ingest.idle();
        await backend.close();
        await validator.close();
      })();
      return closing;
    },
  };
}

/** Closes the HTTP server and the sockets on it: politely, then, after 500 ms, at once. */
async function closeServer(server: http.Server, sockets: Sockets): Promise<void> {
  for (const ws of sockets.ingestSockets) ws.close(CLOSE_SHUTDOWN, 'the relay is shutting down');
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  const timer = setTimeout(() => {
    server.closeAllConnections();
    for (const ws of sockets.ingestSockets) ws.terminate();
    for (const ws of sockets.wssSubscribe.clients) ws.terminate();
  }, 500);
  await closed;
  clearTimeout(timer);
}

function shownHostOf(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
}
