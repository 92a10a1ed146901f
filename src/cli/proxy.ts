// `context-health proxy` (docs/proxy.md): the reverse proxy between an agent and its model
// API, each call a turn in the relay. Flags here; the proxy is src/proxy/server.ts.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { escapeLines } from '../core/terminalText.ts';
import { redactionPatterns } from '../ingest/adapters/proxy/redact.ts';
import { DEFAULT_UPSTREAMS, upstreamUrl } from '../proxy/routes.ts';
import {
  DEFAULT_MAX_CAPTURE_BYTES,
  DEFAULT_MAX_QUEUED,
  DEFAULT_PROXY_PORT,
  ProxyStartupError,
  startProxy,
  type Proxy,
  type ProxyOptions,
} from '../proxy/server.ts';
import { relayBase } from './relayUrl.ts';

export const PROXY_USAGE = `usage: context-health proxy [options]

A reverse proxy between an agent and its model API: every request is forwarded untouched to
the upstream (answers streamed back byte for byte), and every model call becomes one turn of
a session in the relay, with the exact window the agent sent (docs/proxy.md).

options:
  --port N                  port (default ${DEFAULT_PROXY_PORT}; 0 = any free port)
  --host H                  address to bind (default 127.0.0.1; anything else needs --token)
  --relay URL               the relay the turns go to (default http://127.0.0.1:8787, what npm start serves)
  --relay-token T           the relay's token, when it has one (or env CONTEXT_HEALTH_TOKEN)
  --anthropic-upstream URL  where Anthropic calls go (default ${DEFAULT_UPSTREAMS.anthropic})
  --openai-upstream URL     where OpenAI calls go (default ${DEFAULT_UPSTREAMS.openai})
  --token T                 require this token from clients, in the x-context-health-token header
                            (never forwarded)
  --redact REGEX            mask every match in span texts before they leave the proxy (repeatable)
  --max-capture-bytes N     the largest request or answer captured (default 64M; K/M/G suffixes); a
                            larger one is forwarded and its turn is an input error naming the limit
  --max-queued N            turns kept for a relay that is down before further ones are dropped
                            (counted; default ${DEFAULT_MAX_QUEUED})
  -h, --help                this text`;

const OPTIONS = {
  port: { type: 'string', default: String(DEFAULT_PROXY_PORT) },
  host: { type: 'string', default: '127.0.0.1' },
  relay: { type: 'string', default: 'http://127.0.0.1:8787' },
  'relay-token': { type: 'string' },
  'anthropic-upstream': { type: 'string', default: DEFAULT_UPSTREAMS.anthropic },
  'openai-upstream': { type: 'string', default: DEFAULT_UPSTREAMS.openai },
  token: { type: 'string' },
  redact: { type: 'string', multiple: true, default: [] },
  'max-capture-bytes': { type: 'string' },
  'max-queued': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies NonNullable<ParseArgsConfig['options']>;

/** The proxy's options from its flags; throws an Error naming the flag that is wrong. */
export function proxyOptions(args: string[], log: (line: string) => void): ProxyOptions | 'help' {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  if (values.help) return 'help';
  if (positionals.length > 0) throw new Error(`proxy takes no file, got ${JSON.stringify(positionals[0])}`);
  const relay = relayBase(values.relay, '--relay');
  if (!(relay instanceof URL)) throw new Error(relay.error);
  const anthropic = upstreamUrl(values['anthropic-upstream'], '--anthropic-upstream');
  if (!(anthropic instanceof URL)) throw new Error(anthropic.error);
  const openai = upstreamUrl(values['openai-upstream'], '--openai-upstream');
  if (!(openai instanceof URL)) throw new Error(openai.error);
  return {
    port: port(values.port, '--port'),
    host: values.host,
    relay: relay.href,
    relayToken: values['relay-token'] ?? (process.env.CONTEXT_HEALTH_TOKEN || null),
    upstreams: { anthropic, openai },
    token: values.token ?? null,
    redact: redactionPatterns(values.redact),
    maxCaptureBytes: values['max-capture-bytes'] === undefined ? DEFAULT_MAX_CAPTURE_BYTES : byteCount(values['max-capture-bytes'], '--max-capture-bytes'),
    maxQueued: values['max-queued'] === undefined ? DEFAULT_MAX_QUEUED : whole(values['max-queued'], '--max-queued', 1),
    log,
  };
}

export function port(text: string, flag: string): number {
  const n = whole(text, flag, 0);
  if (n > 65535) throw new Error(`${flag} must be at most 65535, got ${n}`);
  return n;
}

function whole(text: string, flag: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) throw new Error(`${flag} must be a whole number ≥ ${min}, got ${JSON.stringify(text)}`);
  return Number(text);
}

function byteCount(text: string, flag: string): number {
  const m = /^(\d+)([kmg]i?b?)?$/i.exec(text.trim());
  if (m === null) throw new Error(`${flag} must be a number of bytes (suffixes K, M, G allowed), got ${JSON.stringify(text)}`);
  const unit = (m[2] ?? '').toLowerCase()[0];
  const n = Number(m[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1);
  if (n < 1024) throw new Error(`${flag} must be at least 1024 bytes, got ${n}`);
  return n;
}

/** The line the proxy prints when it listens: where to point the agents. */
export function proxyBanner(proxy: Proxy, options: ProxyOptions): string {
  const base = proxy.url.replace(/\/$/, '');
  return (
    `context-health proxy: listening on ${base} → turns to ${options.relay}\n` +
    `  Claude Code: ANTHROPIC_BASE_URL=${base}   OpenAI SDKs: OPENAI_BASE_URL=${base}/v1   (docs/proxy.md)\n` +
    `  upstreams: ${options.upstreams.anthropic.origin} (Anthropic), ${options.upstreams.openai.origin} (OpenAI)` +
    `${options.redact.length > 0 ? ` · ${options.redact.length} --redact pattern${options.redact.length === 1 ? '' : 's'}` : ''}\n`
  );
}

export async function runProxy(args: string[]): Promise<number> {
  const log = (line: string): void => void process.stderr.write(escapeLines(line) + '\n');
  let options: ProxyOptions | 'help';
  try {
    options = proxyOptions(args, log);
  } catch (e) {
    process.stderr.write(escapeLines(`context-health proxy: ${(e as Error).message}\n${PROXY_USAGE}\n`));
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(PROXY_USAGE + '\n');
    return 0;
  }
  let proxy: Proxy;
  try {
    proxy = await startProxy(options);
  } catch (e) {
    if (e instanceof ProxyStartupError || (e as NodeJS.ErrnoException).code !== undefined) {
      process.stderr.write(escapeLines(`context-health proxy: ${(e as Error).message}`) + '\n');
      return 2;
    }
    throw e;
  }
  process.stdout.write(proxyBanner(proxy, options));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const c = proxy.counts();
  log(
    `context-health proxy: ${c.calls} model calls, ${c.turns} turns sent, ${c.malformed} not JSON, ${c.overLimit} over the capture limit, ` +
      `${c.upstreamErrors} upstream errors, ${c.dropped} turns dropped (relay queue full)`,
  );
  await proxy.close();
  return 0;
}
