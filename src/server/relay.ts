// `context-health serve`: one HTTP server for the built dashboard and the relay under
// /api (docs/relay-protocol.md is the contract, docs/relay.md the operator's guide).
import crypto from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import path from 'node:path';
import zlib from 'node:zlib';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { CLOSE_GONE, CLOSE_SHUTDOWN, DEFAULT_FANOUT, Fanout, type FanoutOptions } from './fanout.ts';
import { Ingest, type IngestResult } from './ingest.ts';
import { Validator } from './validator.ts';
import { DEFAULT_LIMITS, type Limits } from './sessionGate.ts';
import { serveStatic } from './static.ts';
import { readChunks, SessionStore } from './store.ts';

export interface RelayOptions {
  port: number;
  host: string;
  dataDir: string;
  /** ingest (and deleting a session) requires `Authorization: Bearer <token>` */
  token?: string | null;
  /** the built dashboard; null = do not serve it */
  distDir: string | null;
  fsync?: boolean;
  limits?: Partial<Limits>;
  fanout?: Partial<FanoutOptions>;
  /** worker threads that parse and validate large messages (default: validator.ts defaultThreads) */
  validatorThreads?: number;
  /** how often every WebSocket is pinged; one that misses a ping is dropped (default 30 s) */
  heartbeatMs?: number;
  /** diagnostics (recovered logs, refused requests); default: stderr */
  log?: (line: string) => void;
}

export interface Relay {
  /** `http://host:port/`, with the port actually bound */
  url: string;
  port: number;
  store: SessionStore;
  fanout: Fanout;
  ingest: Ingest;
  close(): Promise<void>;
}

export class StartupError extends Error {}

const INGEST_PATH = '/api/ingest';
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
/** ack frames waiting to be sent before an ingest socket stops being read */
const ACK_HIGH_WATER = 1 << 20;
/** frames of one connection received and not yet answered before it stops being read */
const MAX_WAITING_FRAMES = 256;

export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith('.localhost');
}

export async function startRelay(options: RelayOptions): Promise<Relay> {
  const token = options.token ?? null;
  if (!isLoopbackHost(options.host) && token === null) {
    throw new StartupError(
      `refusing to listen on ${options.host} without a token: anyone who can reach it could write sessions. ` +
        'Set --token T (or CONTEXT_HEALTH_TOKEN), or keep the default --host 127.0.0.1.',
    );
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`context-health: ${line}\n`));
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const fanoutOptions: FanoutOptions = { ...DEFAULT_FANOUT, ...options.fanout };
  await fs.promises.mkdir(options.dataDir, { recursive: true });
  const unlock = lockDataDir(options.dataDir);
  const store = new SessionStore({ dataDir: options.dataDir, fsync: options.fsync ?? false, log });
  try {
    await store.open();
  } catch (e) {
    unlock();
    throw e;
  }
  const fanout = new Fanout(store, fanoutOptions);
  const validator = new Validator(limits, options.validatorThreads, log);
  const ingest = new Ingest(store, fanout, limits, validator);
  const startedAt = Date.now();
  const boundToLoopback = isLoopbackHost(options.host);

  const ingestSockets = new Set<WebSocket>();
  const pausedSockets = new Set<() => void>();
  let reliefWaiters: (() => void)[] = [];
  ingest.onRelieved = () => {
    for (const check of [...pausedSockets]) check();
    const waiters = reliefWaiters;
    reliefWaiters = [];
    for (const w of waiters) w();
  };
  // UTF-8 is checked once, by the gate's decoder: a bad frame gets an error, not a closed connection
  const wssIngest = new WebSocketServer({ noServer: true, maxPayload: Math.max(2 * limits.maxMessageBytes, 1 << 20), perMessageDeflate: false, skipUTF8Validation: true });
  const wssSubscribe = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });

  // A peer that vanished without closing (a laptop asleep, a dropped network) leaves a
  // half-open socket: ping every socket each interval and drop one that did not answer
  // the previous ping, so a relay left running for days holds no dead connections.
  const answered = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const ws of [...wssIngest.clients, ...wssSubscribe.clients]) {
      if (!answered.has(ws)) {
        ws.terminate();
        continue;
      }
      answered.delete(ws);
      ws.ping();
    }
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();
  const watch = (ws: WebSocket): void => {
    answered.add(ws);
    ws.on('pong', () => answered.add(ws));
  };

  const authorized = (req: IncomingMessage, url: URL): boolean => {
    if (token === null) return true;
    const header = req.headers.authorization;
    const given = header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : url.searchParams.get('token');
    return given !== null && safeEqual(given, token);
  };

  /**
   * A browser page from another site must not write to (or, over a WebSocket, read from)
   * a relay on this machine: refuse a foreign Origin, and on loopback a foreign Host
   * (DNS rebinding). Harness clients send no Origin.
   */
  const refusal = (req: IncomingMessage): string | null => {
    const host = req.headers.host ?? '';
    if (boundToLoopback && !isLoopbackHost(hostnameOf(host))) return `Host ${JSON.stringify(host)} is not this machine`;
    const origin = req.headers.origin;
    if (origin === undefined || origin === 'null') return origin === 'null' ? 'an opaque Origin may not use the relay' : null;
    let o: URL;
    try {
      o = new URL(origin);
    } catch {
      return `bad Origin ${JSON.stringify(origin)}`;
    }
    if (o.host === host || isLoopbackHost(o.hostname)) return null;
    return `Origin ${origin} is another site; only pages served by this relay (or from this machine) may use it`;
  };

  const server = http.createServer((req, res) => {
    void handleHttp(req, res).catch((e: unknown) => {
      log(`error serving ${req.method ?? ''} ${req.url ?? ''}: ${(e as Error).message}`);
      if (!res.headersSent) json(res, 500, { error: (e as Error).message });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://relay');
    const p = url.pathname;
    if (!p.startsWith('/api/') && p !== '/api') return serveStatic(options.distDir, req, res, p);
    const refused = refusal(req);
    if (refused !== null) return json(res, 403, { error: refused });
    if (p === INGEST_PATH) {
      if (req.method !== 'POST') return json(res, 405, { error: 'POST NDJSON here, or open a WebSocket' }, { allow: 'POST' });
      if (!authorized(req, url)) return unauthorized(res);
      return postIngest(req, res);
    }
    if (p === '/api/health') return json(res, 200, health());
    if (p === '/api/sessions') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'GET only' }, { allow: 'GET' });
      return json(res, 200, { sessions: store.byRecency().map((s) => s.info()) });
    }
    const route = sessionRoute(p);
    if (route === null) return json(res, 404, { error: `no route ${p}` });
    if (route === 'bad') return json(res, 400, { error: 'the session id in the path is not valid percent-encoding' });
    const session = store.get(route.id);
    if (route.rest === '' && req.method === 'DELETE') {
      if (!authorized(req, url)) return unauthorized(res);
      if (session === undefined) return json(res, 404, { error: `no session ${JSON.stringify(route.id)}` });
      fanout.closeAll(CLOSE_GONE, 'the session was deleted', route.id);
      store.delete(route.id);
      log(`deleted session ${JSON.stringify(route.id)}`);
      return json(res, 200, { deleted: route.id });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'GET (or DELETE a session)' }, { allow: 'GET, DELETE' });
    if (session === undefined) return json(res, 404, { error: `no session ${JSON.stringify(route.id)}` });
    if (route.rest === '') return json(res, 200, session.info());
    if (route.rest === 'transcript') {
      // a snapshot of the log as it is now: exactly last_seq complete lines
      const end = session.size;
      res.writeHead(200, {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'content-length': end,
        'content-disposition': `attachment; filename="${asciiFileName(route.id)}.jsonl"; filename*=UTF-8''${encodeURIComponent(route.id)}.jsonl`,
        'x-last-seq': String(session.lastSeq),
        'cache-control': 'no-store',
      });
      if (req.method === 'HEAD') return void res.end();
      for await (const chunk of readChunks(session.file, 0, end)) {
        if (res.destroyed) return; // the download was abandoned: stop reading (closes the file)
        if (!res.write(chunk)) await drainedOrClosed(res);
      }
      res.end();
      return;
    }
    return json(res, 404, { error: `no route ${p}` });
  }

  async function postIngest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    let body: Readable = req;
    if (encoding === 'gzip') body = req.pipe(zlib.createGunzip());
    else if (encoding !== 'identity') return json(res, 415, { error: `Content-Encoding ${encoding} is not supported (use gzip or none)` });
    const results: { line: number; result: IngestResult | Promise<IngestResult> }[] = [];
    const lines = new LineCutter(limits.maxMessageBytes, (raw, line, tooLong) => {
      results.push({
        line,
        result: tooLong
          ? { ok: false, message: `the line is longer than ${limits.maxMessageBytes} bytes, the most this relay accepts per message (--max-message-bytes)` }
          : ingest.message(raw),
      });
    });
    let readError: string | null = null;
    let settled = 0;
    try {
      for await (const chunk of body) {
        lines.push(chunk as Buffer);
        // a long body is read no faster than it is stored
        if (results.length - settled > 64) {
          await results[results.length - 1]!.result;
          settled = results.length;
        }
        while (ingest.saturated) await new Promise<void>((r) => reliefWaiters.push(r));
      }
      lines.end();
    } catch (e) {
      // what was read is stored; the harness resends and gets `duplicate: true` for it
      readError = `the request body could not be read: ${(e as Error).message}`;
    }
    const accepted: { line: number; session_id: string; seq: number; turn: number | null; duplicate: boolean }[] = [];
    const errors: { line: number; message: string; session_id?: string }[] = [];
    for (const { line, result } of results) {
      const r = await result;
      if (r.ok === 'blank') continue;
      if (r.ok) accepted.push({ line, session_id: r.sessionId, seq: r.seq, turn: r.turn, duplicate: r.duplicate });
      else errors.push({ line, message: r.message, ...(r.sessionId === undefined ? {} : { session_id: r.sessionId }) });
    }
    if (readError !== null) errors.push({ line: lines.lineNo + 1, message: readError });
    json(res, errors.length === 0 ? 200 : 400, { accepted, errors });
  }

  function health(): Record<string, unknown> {
    const mem = process.memoryUsage();
    return {
      ok: true,
      uptime_s: Math.round((Date.now() - startedAt) / 1000),
      sessions: store.count(),
      ingest_connections: ingestSockets.size,
      subscribers: fanout.stats(),
      ingest: ingest.counters,
      limits,
      token_required: token !== null,
      fsync: options.fsync ?? false,
      memory: { rss: mem.rss, heap_used: mem.heapUsed, external: mem.external, array_buffers: mem.arrayBuffers },
    };
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://relay');
    const refused = refusal(req);
    if (refused !== null) return rejectUpgrade(socket, 403, refused);
    if (url.pathname === INGEST_PATH) {
      if (!authorized(req, url)) return rejectUpgrade(socket, 401, 'ingest requires Authorization: Bearer <token> (or ?token=)');
      wssIngest.handleUpgrade(req, socket, head, (ws) => {
        watch(ws);
        onIngestSocket(ws);
      });
      return;
    }
    const route = sessionRoute(url.pathname);
    if (route === null || route === 'bad' || route.rest !== 'subscribe') return rejectUpgrade(socket, 404, `no WebSocket route ${url.pathname}`);
    const sinceText = url.searchParams.get('since') ?? '0';
    const since = /^\d{1,15}$/.test(sinceText) ? Number(sinceText) : Number.NaN;
    if (!Number.isSafeInteger(since)) return rejectUpgrade(socket, 400, `since must be a whole number ≥ 0, got ${JSON.stringify(sinceText)}`);
    wssSubscribe.handleUpgrade(req, socket, head, (ws) => {
      watch(ws);
      ws.on('error', () => ws.terminate());
      // subscribers only listen; anything they send is ignored
      fanout.subscribe(ws, route.id, since);
    });
  });

  function onIngestSocket(ws: WebSocket): void {
    ingestSockets.add(ws);
    let frame = 0;
    let waiting = 0;
    let paused = false;
    // replies leave in frame order: each waits for the one before
    let previous: Promise<void> = Promise.resolve();
    ws.on('error', () => ws.terminate());
    ws.on('close', () => ingestSockets.delete(ws));
    const flowControl = (): void => {
      // a harness far ahead of the relay, or not reading its acks, or a relay with too much
      // received and not yet stored: the socket is not read from until that clears
      const behind = waiting > MAX_WAITING_FRAMES || ws.bufferedAmount > ACK_HIGH_WATER || ingest.saturated;
      if (behind && !paused) ws.pause();
      else if (!behind && paused) ws.resume();
      paused = behind;
      if (paused) pausedSockets.add(flowControl);
      else pausedSockets.delete(flowControl);
    };
    ws.on('close', () => pausedSockets.delete(flowControl));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const f = ++frame;
      const result: IngestResult | Promise<IngestResult> = isBinary
        ? { ok: false, message: 'a binary frame is not a message: send each message as a text frame' }
        : ingest.message(toBuffer(data));
      waiting++;
      flowControl();
      previous = previous.then(async () => {
        const r = await result;
        waiting--;
        let reply: string;
        if (r.ok === 'blank') reply = JSON.stringify({ type: 'error', frame: f, message: 'an empty frame is not a message' });
        else if (r.ok) reply = JSON.stringify({ type: 'ack', frame: f, session_id: r.sessionId, seq: r.seq, turn: r.turn, duplicate: r.duplicate });
        else reply = JSON.stringify({ type: 'error', frame: f, message: r.message, ...(r.sessionId === undefined ? {} : { session_id: r.sessionId }) });
        if (ws.readyState !== ws.OPEN) return;
        ws.send(reply, () => flowControl());
        flowControl();
      }).catch((e: unknown) => log(`ingest connection: ${(e as Error).message}`));
    });
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      unlock();
      store.close();
      void validator.close();
      if (e.code === 'EADDRINUSE') reject(new StartupError(`port ${options.port} on ${options.host} is already in use (another context-health serve?); choose another with --port`));
      else if (e.code === 'EADDRNOTAVAIL') reject(new StartupError(`cannot listen on ${options.host}: no such address on this machine`));
      else reject(e);
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    store,
    fanout,
    ingest,
    close() {
      closing ??= (async () => {
        clearInterval(heartbeat);
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
        await validator.close();
        store.close();
        unlock();
      })();
      return closing;
    },
  };
}

/** Splits a body into lines on the byte 0x0A, never holding more than one line (capped). */
class LineCutter {
  lineNo = 0;
  private parts: Buffer[] = [];
  private bytes = 0;
  private tooLong = false;

  constructor(
    private readonly max: number,
    private readonly onLine: (raw: Buffer, line: number, tooLong: boolean) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      this.take(chunk.subarray(start, nl));
      this.flush();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(Buffer.from(chunk.subarray(start)));
  }

  end(): void {
    if (this.bytes > 0 || this.tooLong) this.flush();
  }

  private take(part: Buffer): void {
    if (this.tooLong) return;
    this.bytes += part.length;
    if (this.bytes > this.max + 1) {
      this.tooLong = true;
      this.parts = [];
      return;
    }
    this.parts.push(part);
  }

  private flush(): void {
    this.lineNo++;
    let raw = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    if (raw.length > 0 && raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, raw.length - 1);
    const tooLong = this.tooLong || raw.length > this.max;
    this.parts = [];
    this.bytes = 0;
    this.tooLong = false;
    this.onLine(raw, this.lineNo, tooLong);
  }
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function sessionRoute(p: string): { id: string; rest: string } | 'bad' | null {
  const m = /^\/api\/sessions\/([^/]+)(?:\/([a-z]+))?\/?$/.exec(p);
  if (m === null) return null;
  try {
    return { id: decodeURIComponent(m[1]!), rest: m[2] ?? '' };
  } catch {
    return 'bad';
  }
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

function unauthorized(res: ServerResponse): void {
  json(res, 401, { error: 'this relay requires a token: send Authorization: Bearer <token>' }, { 'www-authenticate': 'Bearer' });
}

function rejectUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

function asciiFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'session';
}

/**
 * One relay per data directory: two would hand out the same seqs. A lock left by a
 * killed relay (its process is gone) is taken over.
 */
const lockedHere = new Set<string>();

function lockDataDir(dir: string): () => void {
  const file = path.resolve(dir, 'relay.lock');
  if (lockedHere.has(file)) throw new StartupError(`another relay in this process is using the data directory ${dir}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      lockedHere.add(file);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        lockedHere.delete(file);
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      // our own pid in the file: a relay killed in a container restarted with the same pid
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new StartupError(`another relay (pid ${pid}) is using the data directory ${dir}; stop it or choose another --data`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new StartupError(`could not lock the data directory ${dir}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
