// `context-health serve` (contract §6): the dashboard and the relay in one process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../server/connectionLimits.ts';
import { defaultMaxConnections } from '../server/descriptorBudget.ts';
import { DEFAULT_FANOUT } from '../server/fanout.ts';
import { isRedisUrl, startRelay, StartupError, type Relay, type RelayOptions } from '../server/relay.ts';
import { parseDuration } from '../server/retention.ts';
import { DEFAULT_RELAY_LIMITS } from '../server/sessionGate.ts';
import { DEFAULT_DIST } from '../server/static.ts';
import { DEFAULT_REORDER_MS } from '../ingest/adapters/otlp/adapter.ts';
import { DEFAULT_PARK_IDLE_MS } from '../server/analysis/analysisThreads.ts';
import { isLoopbackHost } from '../server/accessPolicy.ts';
import type { Proxy } from '../proxy/server.ts';
import { defaultAgentFolders } from '../server/localSessions/agentFolders.ts';
import { localRoutes } from '../server/localSessions/localRoutes.ts';
import { escapeLines } from '../core/terminalText.ts';
import { followLocalSessions } from './localFollow.ts';
import { localSessionsRefusal, openLocalIndex } from './localSessions.ts';

export const SERVE_USAGE = `usage: context-health serve [options]
  --port N                 port (default 8787; 0 = any free port)
  --host H                 address to bind (default 127.0.0.1; anything else needs --token)
  --data DIR               where session logs live (default ./.data)
  --token T                require "Authorization: Bearer T" to ingest (or env CONTEXT_HEALTH_TOKEN)
  --token-for-reads        require the token for reading too (session list, transcripts, subscriptions)
  --allow-origin ORIGIN    let pages of this origin use the relay besides its own, e.g. the dev server:
                           --allow-origin http://localhost:5173 (repeatable; default: only the relay's own)
  --public-url URL         the URL the relay is reached at through a proxy: its host name and origin
                           count as the relay's own (repeatable)
  --allow-webhook-host H   let alert webhooks reach host H although it is not a public address (loopback, private
                           networks, link-local), e.g. a local Slack bridge (repeatable; default: public addresses only)
  --sessions DIR           list the agent sessions in DIR too (Claude Code, Codex or Gemini CLI files, told by
                           content), besides ~/.claude/projects, ~/.codex/sessions and ~/.gemini/tmp (repeatable)
  --no-local-sessions      do not list this machine's agent sessions (listed by default when bound to loopback,
                           or with --token-for-reads; docs/relay.md "Local sessions")
  --demo                   run the built-in demo session "demo" (a simulated agent, one turn a second)
  --demo-interval MS       milliseconds between demo turns (default 1000)
  --static DIR             serve this built dashboard instead of the package's dist/
  --no-static              do not serve the dashboard, only /api
  --fsync                  flush every message to disk before acknowledging it (survives power loss; slower)
  --store URL              keep sessions in Redis Streams (redis://host:port, or redis-cluster://host:port for a
                           Redis Cluster) instead of JSONL files under --data, so several relays serve the same
                           sessions (docs/scale-out.md)
  --max-message-bytes N    largest message (frame or NDJSON line) accepted (default ${DEFAULT_RELAY_LIMITS.maxMessageBytes}; K/M/G suffixes)
  --max-spans N            most spans per snapshot (default ${DEFAULT_RELAY_LIMITS.maxSpansPerSnapshot})
  --max-sessions N         most sessions held (default ${DEFAULT_RELAY_LIMITS.maxSessions})
  --max-request-lines N    most lines (blank ones included) read from one POST body (default ${DEFAULT_CONNECTION_LIMITS.maxRequestLines})
  --max-request-bytes N    most bytes read from one POST body once decompressed (default ${DEFAULT_CONNECTION_LIMITS.maxRequestBytes})
  --max-unfinished-bytes N bytes of messages not yet fully received, all connections together (default ${DEFAULT_CONNECTION_LIMITS.maxUnfinishedBytes})
  --max-unfinished-bytes-per-address N
                           the same for the connections of one remote address (default ${DEFAULT_CONNECTION_LIMITS.maxUnfinishedBytesPerAddress})
  --idle-timeout S         close a connection that sends no request within S seconds (default ${DEFAULT_CONNECTION_LIMITS.idleTimeoutMs / 1000})
  --body-timeout S         a request, or one WebSocket message, must arrive whole within S seconds (default ${DEFAULT_CONNECTION_LIMITS.bodyTimeoutMs / 1000})
  --max-connections N      TCP connections open at once; past it the oldest that sent no request is closed for
                           the new one (default: the open-file limit less a quarter kept for files, ${defaultMaxConnections()} here)
  --subscriber-buffer N    unsent bytes a dashboard may fall behind before it is cut off (default ${DEFAULT_FANOUT.maxBufferedBytes})
  --validator-threads N    worker threads parsing and validating large messages (default: none with the analysis on or on 2 cores, else cores - 1, at most 4)
  --otlp-reorder-ms MS     OTLP (POST /v1/traces): how long a model call waits for earlier ones of its conversation
                           before it becomes a turn (default ${DEFAULT_REORDER_MS}; 0 = stored before the export is answered)
  --otlp-decode-budget N   OTLP: request bytes read and decoded at once; an export past it is answered 503 with
                           Retry-After (default 2 × --max-message-bytes; K/M/G suffixes)
  --no-analysis            do not analyse sessions: acks carry no verdict, no overview, no alerts
  --analysis-threads N     worker threads running the sessions' analysis, each session on one (default 1 with 2 cores
                           or more, else 0 = on the main thread)
  --analysis-idle S        seconds a session may send nothing before its analysis state (about the size of its
                           last snapshot) is dropped from the analysis thread, rebuilt from its log on its next
                           message (default ${DEFAULT_PARK_IDLE_MS / 1000}; needs --analysis-threads 1 or more)
  --retain AGE             delete sessions with no message for longer than AGE (e.g. 7d, 12h, 30m)
  --retain-bytes N         delete the least recently updated sessions while the logs exceed N bytes (K/M/G suffixes; live sessions are kept)
  --proxy-port N           also run \`context-health proxy\` on port N (same --host and --token; its turns go to this relay;
                           the other proxy settings at their defaults: docs/proxy.md)
  --anthropic-upstream URL, --openai-upstream URL
                           with --proxy-port: where the proxy sends Anthropic and OpenAI calls (default the public APIs)`;

const SERVE_OPTIONS = {
  port: { type: 'string', default: '8787' },
  host: { type: 'string', default: '127.0.0.1' },
  data: { type: 'string', default: '.data' },
  token: { type: 'string' },
  'token-for-reads': { type: 'boolean', default: false },
  'allow-origin': { type: 'string', multiple: true, default: [] },
  'public-url': { type: 'string', multiple: true, default: [] },
  'allow-webhook-host': { type: 'string', multiple: true, default: [] },
  sessions: { type: 'string', multiple: true, default: [] },
  'no-local-sessions': { type: 'boolean', default: false },
  demo: { type: 'boolean', default: false },
  'demo-interval': { type: 'string', default: '1000' },
  static: { type: 'string' },
  'no-static': { type: 'boolean', default: false },
  fsync: { type: 'boolean', default: false },
  store: { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'max-spans': { type: 'string' },
  'max-sessions': { type: 'string' },
  'subscriber-buffer': { type: 'string' },
  'max-request-lines': { type: 'string' },
  'max-request-bytes': { type: 'string' },
  'max-unfinished-bytes': { type: 'string' },
  'max-unfinished-bytes-per-address': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'body-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'validator-threads': { type: 'string' },
  'otlp-reorder-ms': { type: 'string' },
  'otlp-decode-budget': { type: 'string' },
  'no-analysis': { type: 'boolean', default: false },
  'analysis-threads': { type: 'string' },
  'analysis-idle': { type: 'string' },
  retain: { type: 'string' },
  'retain-bytes': { type: 'string' },
  'proxy-port': { type: 'string' },
  'anthropic-upstream': { type: 'string' },
  'openai-upstream': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies NonNullable<ParseArgsConfig['options']>;

type ServeValues = ReturnType<typeof parseServeArgs>['values'];

function parseServeArgs(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: SERVE_OPTIONS });
}

/** The numbers the flags give; throws with the flag's name when one is not a valid value. */
function tuningOf(values: ServeValues, positionals: string[]): { port: number; demoInterval: number; proxyPort: number | null; relay: Partial<RelayOptions> } {
  const limits: Record<string, number> = {};
  const connection: Partial<ConnectionLimits> = {};
  let subscriberBuffer: number | undefined;
  let validatorThreads: number | undefined;
  let analysisThreads: number | undefined;
  let otlpReorderMs: number | undefined;
  let otlpDecodeBudgetBytes: number | undefined;
  let analysisIdleMs: number | undefined;
  let retainMs: number | null = null;
  let retainBytes: number | null = null;
  if (positionals.length > 0) throw new Error(`serve takes no file, got ${JSON.stringify(positionals[0])}`);
  const port = count(values.port, '--port', 0);
  if (port > 65535) throw new Error(`--port must be at most 65535, got ${port}`);
  const demoInterval = count(values['demo-interval'], '--demo-interval', 1);
  const proxyPort = values['proxy-port'] === undefined ? null : count(values['proxy-port'], '--proxy-port', 0);
  if (proxyPort !== null && proxyPort > 65535) throw new Error(`--proxy-port must be at most 65535, got ${proxyPort}`);
  if (values['max-message-bytes'] !== undefined) limits.maxMessageBytes = bytes(values['max-message-bytes'], '--max-message-bytes');
  if (values['max-spans'] !== undefined) limits.maxSpansPerSnapshot = count(values['max-spans'], '--max-spans', 1);
  if (values['max-sessions'] !== undefined) limits.maxSessions = count(values['max-sessions'], '--max-sessions', 1);
  if (values['max-request-lines'] !== undefined) connection.maxRequestLines = count(values['max-request-lines'], '--max-request-lines', 1);
  if (values['max-request-bytes'] !== undefined) connection.maxRequestBytes = bytes(values['max-request-bytes'], '--max-request-bytes');
  if (values['max-unfinished-bytes'] !== undefined) connection.maxUnfinishedBytes = bytes(values['max-unfinished-bytes'], '--max-unfinished-bytes');
  if (values['max-unfinished-bytes-per-address'] !== undefined) {
    connection.maxUnfinishedBytesPerAddress = bytes(values['max-unfinished-bytes-per-address'], '--max-unfinished-bytes-per-address');
  }
  if (values['idle-timeout'] !== undefined) connection.idleTimeoutMs = seconds(values['idle-timeout'], '--idle-timeout');
  if (values['body-timeout'] !== undefined) connection.bodyTimeoutMs = seconds(values['body-timeout'], '--body-timeout');
  if (values['max-connections'] !== undefined) connection.maxConnections = count(values['max-connections'], '--max-connections', 1);
  if (values['subscriber-buffer'] !== undefined) subscriberBuffer = bytes(values['subscriber-buffer'], '--subscriber-buffer');
  if (values['validator-threads'] !== undefined) validatorThreads = count(values['validator-threads'], '--validator-threads', 0);
  if (values['analysis-threads'] !== undefined) analysisThreads = count(values['analysis-threads'], '--analysis-threads', 0);
  if (values['analysis-idle'] !== undefined) analysisIdleMs = seconds(values['analysis-idle'], '--analysis-idle');
  if (values['otlp-reorder-ms'] !== undefined) otlpReorderMs = count(values['otlp-reorder-ms'], '--otlp-reorder-ms', 0);
  if (values['otlp-decode-budget'] !== undefined) otlpDecodeBudgetBytes = bytes(values['otlp-decode-budget'], '--otlp-decode-budget');
  if (values.retain !== undefined) retainMs = parseDuration(values.retain, '--retain');
  if (values['retain-bytes'] !== undefined) retainBytes = bytes(values['retain-bytes'], '--retain-bytes');
  return {
    port,
    demoInterval,
    proxyPort,
    relay: {
      limits,
      connection,
      fanout: subscriberBuffer === undefined ? {} : { maxBufferedBytes: subscriberBuffer },
      ...(validatorThreads === undefined ? {} : { validatorThreads }),
      ...(otlpReorderMs === undefined ? {} : { otlpReorderMs }),
      ...(otlpDecodeBudgetBytes === undefined ? {} : { otlpDecodeBudgetBytes }),
      ...(analysisThreads === undefined ? {} : { analysisThreads }),
      ...(analysisIdleMs === undefined ? {} : { analysisIdleMs }),
      retainMs,
      retainBytes,
    },
  };
}

/** Why --store (with --demo) cannot be used, or null. */
function storeRefusal(values: ServeValues): string | null {
  if (values.store !== undefined && !isRedisUrl(values.store)) {
    return `--store must be redis://host:port (rediss:// for TLS, redis-cluster://host:port for a Cluster), got ${JSON.stringify(values.store)}\n${SERVE_USAGE}`;
  }
  if (values.store !== undefined && values.demo) return '--demo writes to the JSONL store only; leave out --store or --demo';
  return null;
}

export async function runServe(args: string[]): Promise<number> {
  const { values, positionals } = parseServeArgs(args);
  if (values.help) {
    process.stdout.write(SERVE_USAGE + '\n');
    return 0;
  }
  let tuning: ReturnType<typeof tuningOf>;
  try {
    tuning = tuningOf(values, positionals);
  } catch (e) {
    process.stderr.write(`context-health serve: ${(e as Error).message}\n${SERVE_USAGE}\n`);
    return 2;
  }
  const token = values.token ?? (process.env.CONTEXT_HEALTH_TOKEN || null);
  const dataDir = path.resolve(values.data);
  const refusal = storeRefusal(values);
  if (refusal !== null) {
    process.stderr.write(`context-health serve: ${refusal}\n`);
    return 2;
  }
  const distDir = values['no-static'] ? null : path.resolve(values.static ?? DEFAULT_DIST);
  const localChoice = {
    off: values['no-local-sessions'],
    extra: values.sessions,
    host: values.host,
    tokenForReads: values['token-for-reads'],
  };
  const localOff = localSessionsRefusal(localChoice);
  const localIndex = localOff === null ? openLocalIndex(localChoice) : null;

  let relay: Relay;
  try {
    relay = await startRelay({
      port: tuning.port,
      host: values.host,
      dataDir,
      token,
      tokenForReads: values['token-for-reads'],
      allowOrigins: values['allow-origin'],
      publicUrls: values['public-url'],
      allowWebhookHosts: values['allow-webhook-host'],
      distDir,
      fsync: values.fsync,
      ...(values.store === undefined ? {} : { store: values.store }),
      analysis: !values['no-analysis'],
      extraRoutes: localRoutes(localIndex, localOff),
      ...tuning.relay,
    });
  } catch (e) {
    localIndex?.close();
    if (e instanceof StartupError || (e as NodeJS.ErrnoException).code !== undefined) {
      process.stderr.write(`context-health serve: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }

  // lines posted before the analysis threads have loaded the engine only wait, but a harness
  // started on this line would find the first second's acks late
  await relay.analysis?.threads?.ready();
  const sessionsAtStart = relay.store.knownCount();
  let stopDemo: (() => void) | null = null;
  if (values.demo) {
    const { startDemo } = await import('../server/demo.ts');
    stopDemo = startDemo(relay.ingest, relay.store, { intervalMs: tuning.demoInterval }).stop;
  }
  let proxy: Proxy | null = null;
  if (tuning.proxyPort !== null) {
    try {
      proxy = await serveProxy(relay, tuning.proxyPort, values, token);
    } catch (e) {
      process.stderr.write(`context-health serve: the proxy could not start: ${(e as Error).message}\n`);
      localIndex?.close();
      await relay.close();
      return 2;
    }
  }
  let stopFollow: (() => Promise<void>) | null = null;
  if (localIndex !== null) {
    localIndex.refresh(); // the first look starts now, in the background
    const follower = followLocalSessions({
      index: localIndex,
      relayUrl: relay.url,
      token,
      dataDir,
      log: (l) => process.stderr.write(escapeLines(`context-health serve: ${l}`) + '\n'),
    });
    stopFollow = () => {
      localIndex.close();
      return follower.stop();
    };
  }
  const where = values.store === undefined ? dataDir : redactedUrl(values.store);
  const wsUrl = relay.url.replace(/^http/, 'ws');
  process.stdout.write(
    `context-health: listening on ${relay.url} — open it in a browser\n` +
      `  data: ${where} (${sessionsAtStart} session${sessionsAtStart === 1 ? '' : 's'} stored)` +
      `${values.demo ? ' · demo session "demo"' : ''}\n` +
      `  local sessions: ${localOff === null ? localFolders(values.sessions) : `off, ${localOff}`}\n` +
      `  harnesses: POST ${relay.url}api/ingest (NDJSON) or ${wsUrl}api/ingest · token ${token === null ? 'not required' : 'required'}\n` +
      `${proxy === null ? '' : `  proxy: ${proxy.url} (ANTHROPIC_BASE_URL, OPENAI_BASE_URL=…/v1; docs/proxy.md)\n`}` +
      `  stop with Ctrl-C\n`,
  );
  return untilSignal(relay, stopDemo, stopFollow, values.store === undefined ? dataDir : 'Redis', proxy);
}

/** The start-up line's folders: the agents' own, and the --sessions ones. */
function localFolders(extra: string[]): string {
  // an optional folder (agentFolders.ts) is named when it exists now; it is searched either way
  const own = defaultAgentFolders(os.homedir()).filter((f) => f.optional !== true || fs.existsSync(f.root));
  return [...own.map((f) => f.root), ...extra.map((d) => path.resolve(d))].join(', ') + ' (read-only)';
}

/** `serve --proxy-port N`: the proxy in this process, its turns sent to this relay over loopback. */
async function serveProxy(relay: Relay, port: number, values: ServeValues, token: string | null): Promise<Proxy> {
  const { startProxy, DEFAULT_MAX_CAPTURE_BYTES, DEFAULT_MAX_QUEUED } = await import('../proxy/server.ts');
  const { DEFAULT_UPSTREAMS, upstreamUrl } = await import('../proxy/routes.ts');
  const upstream = (text: string, flag: string): URL => {
    const u = upstreamUrl(text, flag);
    if (!(u instanceof URL)) throw new Error(u.error);
    return u;
  };
  const anthropic = upstream(values['anthropic-upstream'] ?? DEFAULT_UPSTREAMS.anthropic, '--anthropic-upstream');
  const openai = upstream(values['openai-upstream'] ?? DEFAULT_UPSTREAMS.openai, '--openai-upstream');
  const host = values.host;
  const relayPort = new URL(relay.url).port;
  return startProxy({
    port,
    host,
    relay: `http://127.0.0.1:${relayPort}/`,
    relayToken: token,
    upstreams: { anthropic, openai },
    token: isLoopbackHost(host) ? null : token,
    redact: [],
    maxCaptureBytes: DEFAULT_MAX_CAPTURE_BYTES,
    maxQueued: DEFAULT_MAX_QUEUED,
    log: (line) => void process.stderr.write(line + '\n'),
  });
}

/** Runs until SIGINT or SIGTERM, then closes the relay (a second signal exits at once). */
function untilSignal(
  relay: Relay,
  stopDemo: (() => void) | null,
  stopFollow: (() => Promise<void>) | null,
  where: string,
  proxy: Proxy | null,
): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) {
        process.stderr.write(`context-health serve: ${signal} again, exiting now\n`);
        process.exit(130);
      }
      stopping = true;
      process.stderr.write(`context-health serve: ${signal}, closing (everything acknowledged is in ${where})\n`);
      stopDemo?.();
      void (stopFollow?.() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => proxy?.close())
        .then(() => relay.close())
        .then(() => resolve(0));
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}

function count(text: string, flag: string, min: number): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} must be a whole number, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (n < min) throw new Error(`${flag} must be at least ${min}, got ${n}`);
  return n;
}

function bytes(text: string, flag: string): number {
  const m = /^(\d+)([kmg]i?b?)?$/i.exec(text.trim());
  if (m === null) throw new Error(`${flag} must be a number of bytes (suffixes K, M, G allowed), got ${JSON.stringify(text)}`);
  const unit = (m[2] ?? '').toLowerCase()[0];
  const n = Number(m[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1);
  if (n < 1024) throw new Error(`${flag} must be at least 1024 bytes, got ${n}`);
  return n;
}

function seconds(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0)) throw new Error(`${flag} must be a number of seconds > 0, got ${JSON.stringify(text)}`);
  return Math.round(n * 1000);
}

/** The Redis URL without its password, for the start-up line. */
function redactedUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//…@');
}
