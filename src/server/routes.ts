// The relay's HTTP routes under /api, as a table: each route names its path, the methods
// it answers and whether it reads or writes (which decides what the access policy asks
// for). WebSocket upgrades are routed in relay.ts; docs/relay-protocol.md is the contract.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RelaySessionList } from '../protocol/relay.ts';
import type { Access } from './accessPolicy.ts';
import { CLOSE_GONE, type Fanout } from './fanout.ts';
import { infoOf, transcriptOf, type SessionStore, type Transcript } from './sessionStore.ts';
import { writeExpanded } from './expandedTranscript.ts';
import { drainedOrClosed, json } from './httpReply.ts';
import { quoted } from './quoted.ts';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** the decoded session id of a /api/sessions/<id> route */
  sessionId: string;
}

export interface Route {
  path: RegExp;
  method: string;
  access: Access;
  handle: (ctx: RouteContext) => Promise<void> | void;
}

export interface RouteDeps {
  /** where sessions live: the JSONL files or Redis (backend.ts) */
  store: SessionStore;
  fanout: Fanout;
  health: () => { status: number; body: unknown };
  postIngest: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  log: (line: string) => void;
  /** after a session was deleted (the analysis forgets it) */
  onDeleted?: (sessionId: string) => void;
  /** more routes (the analysis's overview, the alerts: src/server/analysis/routes.ts) */
  extra?: Route[];
}

export const INGEST_PATH = '/api/ingest';
const SESSION = /^\/api\/sessions\/([^/]+)\/?$/;
const TRANSCRIPT = /^\/api\/sessions\/([^/]+)\/transcript\/?$/;
export const SUBSCRIBE = /^\/api\/sessions\/([^/]+)\/subscribe\/?$/;

export function routeTable(deps: RouteDeps): Route[] {
  const { store, fanout } = deps;
  const info = async (sessionId: string): Promise<ReturnType<typeof infoOf> | undefined> => {
    const s = await store.state(sessionId, true);
    return s === undefined ? undefined : infoOf(s);
  };
  const noSession = (ctx: RouteContext): void => json(ctx.res, 404, { error: `no session ${quoted(ctx.sessionId)}` });
  return [
    { path: /^\/api\/ingest$/, method: 'POST', access: 'write', handle: ({ req, res }) => deps.postIngest(req, res) },
    {
      path: /^\/api\/health$/,
      method: 'GET',
      access: 'open',
      handle: ({ res }) => {
        const { status, body } = deps.health();
        json(res, status, body);
      },
    },
    {
      path: /^\/api\/sessions\/?$/,
      method: 'GET',
      access: 'read',
      handle: async ({ res }) => json(res, 200, { sessions: (await store.list()).map(infoOf) } satisfies RelaySessionList),
    },
    {
      path: SESSION,
      method: 'GET',
      access: 'read',
      handle: async (ctx) => {
        const found = await info(ctx.sessionId);
        if (found === undefined) return noSession(ctx);
        json(ctx.res, 200, found);
      },
    },
    {
      path: SESSION,
      method: 'DELETE',
      access: 'write',
      handle: async (ctx) => {
        const { res, sessionId } = ctx;
        if ((await info(sessionId)) === undefined) return noSession(ctx);
        fanout.closeAll(CLOSE_GONE, 'the session was deleted', sessionId);
        await store.delete(sessionId);
        deps.onDeleted?.(sessionId);
        deps.log(`deleted session ${quoted(sessionId)}`);
        json(res, 200, { deleted: sessionId });
      },
    },
    {
      path: TRANSCRIPT,
      method: 'GET',
      access: 'read',
      handle: async (ctx) => {
        const t = await transcriptOf(store, ctx.sessionId);
        if (t === undefined) return noSession(ctx);
        return sendTranscript(ctx, t);
      },
    },
    ...(deps.extra ?? []),
  ];
}

/** Finds the route for a request: the route, or the status and error to answer with. */
export function findRoute(
  table: Route[],
  method: string,
  pathname: string,
): { route: Route; sessionId: string } | { status: number; error: string; allow?: string } {
  const byPath = table.filter((r) => r.path.test(pathname));
  if (byPath.length === 0) return { status: 404, error: `no route ${quoted(pathname)}` };
  const m = method === 'HEAD' ? 'GET' : method;
  const route = byPath.find((r) => r.method === m);
  const allow = byPath.map((r) => r.method).join(', ');
  if (route === undefined) return { status: 405, error: `${method} is not answered here; use ${allow}`, allow };
  const encoded = route.path.exec(pathname)![1];
  if (encoded === undefined) return { route, sessionId: '' };
  try {
    return { route, sessionId: decodeURIComponent(encoded) };
  } catch {
    return { status: 400, error: 'the session id in the path is not valid percent-encoding' };
  }
}

/** A snapshot of the log as it is now: exactly last_seq complete lines. */
async function sendTranscript({ req, res, url, sessionId }: RouteContext, t: Transcript): Promise<void> {
  // contract §7: ?expand=1 sends compact snapshots whole (its length is not known ahead)
  const expand = url.searchParams.get('expand') === '1';
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    ...(expand || t.bytes === null ? {} : { 'content-length': t.bytes }),
    'content-disposition': `attachment; filename="${asciiFileName(sessionId)}.jsonl"; filename*=UTF-8''${encodeURIComponent(sessionId)}.jsonl`,
    'x-last-seq': String(t.lastSeq),
    'cache-control': 'no-store',
  });
  if (req.method === 'HEAD') return void res.end();
  if (expand) return writeExpanded(res, t.chunks());
  for await (const chunk of t.chunks()) {
    if (res.destroyed) return; // the download was abandoned: stop reading (closes the file)
    if (!res.write(chunk)) await drainedOrClosed(res);
  }
  res.end();
}

function asciiFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'session';
}
