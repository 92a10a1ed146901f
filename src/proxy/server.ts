// `context-health proxy` (docs/proxy.md): a reverse proxy between an agent and its model API.
// Every request goes to the upstream the user configured, untouched, and its answer comes back
// byte for byte, streamed as it arrives. The model calls (Anthropic Messages, OpenAI Chat
// Completions and Responses) are also captured: once a call's answer has ended, the adapter
// (src/ingest/adapters/proxy/) turns it into a turn that goes to the relay (relaySink.ts).
// The capture never delays the forwarding: it copies what passes, bounded, and its work
// happens after the answer's last byte was written.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostNameOf, isLoopbackHost } from '../server/accessPolicy.ts';
import { forwardedRequestHeaders, forwardedResponseHeaders, PROXY_TOKEN_HEADER } from './headers.ts';
import { CallRecorder, type ProxyCounts } from './recorder.ts';
import { apiOf, type Upstreams } from './routes.ts';
import { RelaySink, type SinkCounts } from './relaySink.ts';
import { safeEqual } from './token.ts';

export const DEFAULT_PROXY_PORT = 8788;
export const DEFAULT_MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_QUEUED = 10_000;

export interface ProxyOptions {
  port: number;
  host: string;
  /** the relay the turns go to (http://127.0.0.1:8787, what npm start serves) */
  relay: string;
  relayToken: string | null;
  upstreams: Upstreams;
  /** required from clients (header x-context-health-token) when set; needed off loopback */
  token: string | null;
  redact: RegExp[];
  maxCaptureBytes: number;
  maxQueued: number;
  log: (line: string) => void;
}

export interface Proxy {
  url: string;
  port: number;
  counts(): ProxyCounts & SinkCounts & { queued: number };
  /** resolves once every turn of the calls answered so far was acknowledged by the relay */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export class ProxyStartupError extends Error {}

export async function startProxy(options: ProxyOptions): Promise<Proxy> {
  if (!isLoopbackHost(options.host) && options.token === null) {
    throw new ProxyStartupError(
      `--host ${options.host} would let other machines spend your API keys through the proxy: set --token T as well (clients send it in ${PROXY_TOKEN_HEADER})`,
    );
  }
  const sink = new RelaySink({ url: options.relay, token: options.relayToken, maxQueued: options.maxQueued, log: options.log });
  const recorder = new CallRecorder(sink, options);
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };
  const server = http.createServer({ noDelay: true }, (req, res) => {
    const refusal = refuse(req, options);
    if (refusal !== null) {
      recorder.counts.refused++;
      return answer(res, refusal.status, refusal.message);
    }
    forward(req, res, options.upstreams, agents, recorder, options.log);
  });
  // a model's answer may take minutes: the proxy sets no timeout of its own
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    counts: () => ({ ...recorder.counts, ...sink.counts, queued: sink.queued }),
    flush: async () => {
      await recorder.settled();
      await sink.flush();
    },
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await recorder.settled();
      await sink.close();
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function refuse(req: http.IncomingMessage, options: ProxyOptions): { status: number; message: string } | null {
  // docs/proxy.md: the upstream is never derived from the request (no absolute-URI open proxy)
  if (req.method === 'CONNECT' || !(req.url ?? '').startsWith('/')) {
    return { status: 400, message: 'this proxy forwards only to its configured upstreams: send the request path (/v1/…), not an absolute URL' };
  }
  if (isLoopbackHost(options.host)) {
    // a page on a DNS-rebound name (evil.example resolving to 127.0.0.1) may not use it
    const name = req.headers.host === undefined ? null : hostNameOf(req.headers.host);
    if (name !== null && !isLoopbackHost(name))
      return { status: 403, message: `Host ${JSON.stringify(req.headers.host!.slice(0, 200))} is not this proxy's address` };
  }
  if (options.token !== null) {
    const given = req.headers[PROXY_TOKEN_HEADER];
    if (typeof given !== 'string' || !safeEqual(given, options.token))
      return { status: 401, message: `this proxy requires its token in the ${PROXY_TOKEN_HEADER} header` };
  }
  return null;
}

function answer(res: http.ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ type: 'error', error: { type: 'proxy_error', message } }) + '\n';
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  upstreams: Upstreams,
  agents: Record<'http:' | 'https:', http.Agent>,
  recorder: CallRecorder,
  log: (line: string) => void,
): void {
  const route = apiOf(req, upstreams);
  const base = route.upstream;
  const call = recorder.begin(req, route.api);
  let upstreamReq: http.ClientRequest;
  try {
    const transport = base.protocol === 'https:' ? https : http;
    upstreamReq = transport.request({
      protocol: base.protocol,
      hostname: base.hostname.replace(/^\[|\]$/g, ''),
      port: base.port === '' ? undefined : Number(base.port),
      method: req.method,
      path: base.pathname.replace(/\/+$/, '') + req.url!,
      headers: forwardedRequestHeaders(req.rawHeaders, base.host) as unknown as http.OutgoingHttpHeaders,
      agent: agents[base.protocol as 'http:' | 'https:'],
    });
  } catch (e) {
    // Node refuses header values it cannot write (CR, LF, NUL: header injection)
    call?.abandon();
    recorder.counts.refused++;
    return answer(res, 400, `the request could not be forwarded: ${(e as Error).message}`);
  }
  upstreamReq.setNoDelay(true);
  let answered = false;
  upstreamReq.on('response', (up) => {
    answered = true;
    const capture = call?.response(up) ?? null;
    try {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardedResponseHeaders(up.rawHeaders));
    } catch (e) {
      // a header Node cannot write again (a character it refuses): the answer cannot be passed on as it is
      up.destroy();
      call?.abandon();
      return answer(res, 502, `context-health proxy could not pass on the upstream's answer: ${(e as Error).message}.`);
    }
    res.flushHeaders();
    up.on('data', (chunk: Buffer) => {
      capture?.push(chunk);
      if (!res.write(chunk)) {
        up.pause();
        res.once('drain', () => up.resume());
      }
    });
    up.on('end', () => {
      res.addTrailers(trailersOf(up.rawTrailers));
      res.end();
      call?.finish();
    });
    up.on('error', () => {
      // the upstream broke off mid-answer: so does the proxy (the client sees a cut answer, as it would have)
      if (!res.writableEnded) res.destroy();
      call?.abandon();
    });
  });
  upstreamReq.on('error', (e: NodeJS.ErrnoException) => {
    call?.abandon();
    if (res.writableEnded) return;
    if (answered || res.headersSent || res.destroyed) return void res.destroy();
    recorder.counts.upstreamUnreachable++;
    log(`context-health proxy: ${req.method} ${pathOnly(req.url!)}: could not reach ${base.origin} (${e.code ?? e.message})`);
    answer(res, 502, `context-health proxy could not reach the upstream ${base.origin} (${e.code ?? e.message}).`);
  });
  // the client went away before the answer ended: the upstream request is cancelled
  res.on('close', () => {
    if (!res.writableFinished) {
      upstreamReq.destroy();
      call?.abandon();
    }
  });
  req.on('data', (chunk: Buffer) => {
    call?.request(chunk);
    if (!upstreamReq.write(chunk)) {
      req.pause();
      upstreamReq.once('drain', () => req.resume());
    }
  });
  req.on('end', () => upstreamReq.end());
  req.on('error', () => upstreamReq.destroy());
}

function trailersOf(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/** a request's path without its query (a query may hold a key: `?key=…`) */
export function pathOnly(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
