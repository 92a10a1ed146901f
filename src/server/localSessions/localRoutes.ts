// The relay's local-sessions routes (docs/relay.md "Local sessions"): the listing, and one
// row's file as bytes, for the page to analyse as it analyses a dropped file. Both are reads
// (the token is asked for with --token-for-reads). A row is named by its opaque id only; an
// id that is not one the index found is refused, so no request can name a path.
import fs from 'node:fs';
import type { LocalSessionList } from '../../protocol/localSessions.ts';
import { drainedOrClosed, json } from '../httpReply.ts';
import type { Route } from '../routes.ts';
import type { LocalSessionIndex } from './localIndex.ts';
import { NotRegularFile, openRegularFile } from '../../node/openRegular.ts';
import { conversationFiles, writeConversation } from './openhandsConversation.ts';

export const LOCAL_LIST_PATH = '/api/local';
const ROW_ID = /^[0-9a-f]{24}$/;

/** The routes, with the index (null: local sessions are off, and `reason` says why). */
export function localRoutes(index: LocalSessionIndex | null, reason: string | null): Route[] {
  return [
    {
      path: /^\/api\/local\/?$/,
      method: 'GET',
      access: 'read',
      handle: ({ res, url }) => {
        if (index === null) {
          const off: LocalSessionList = { enabled: false, reason, indexing: false, folders: [], sessions: [], total: 0 };
          return json(res, 200, off);
        }
        const limit = Number(url.searchParams.get('limit') ?? '500');
        json(res, 200, index.list(Number.isInteger(limit) && limit > 0 ? Math.min(limit, 5000) : 500));
      },
    },
    {
      path: /^\/api\/local\/([^/]+)\/file\/?$/,
      method: 'GET',
      access: 'read',
      handle: async ({ req, res, sessionId: id }) => {
        if (index === null) return json(res, 404, { error: `local sessions are off${reason === null ? '' : `: ${reason}`}` });
        if (!ROW_ID.test(id)) return json(res, 400, { error: 'not a local session id (a row of GET /api/local names its file; a path is never accepted)' });
        const file = await index.fileOf(id);
        if (file === undefined) return json(res, 404, { error: `no local session ${id} (listed again? it may have moved out of its folder)` });
        if (file.conversation) return sendConversation(req.method === 'HEAD', res, file.path, file.name, file.root);
        return sendFile(req.method === 'HEAD', res, file.path, file.name, file.root);
      },
    },
  ];
}

/**
 * The file as it is when opened: exactly the bytes it had then (a file that grows sends the
 * part it had; one replaced keeps the open one's bytes). A file truncated under the read is
 * cut off mid-answer, so the page fails the load instead of analysing a mix.
 */
async function sendFile(headOnly: boolean, res: import('node:http').ServerResponse, file: string, name: string, root: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    // docs/security.md "Local sessions": from here on only the checked descriptor is read
    handle = await openRegularFile(file, root);
  } catch (e) {
    return unreadable(res, name, e);
  }
  try {
    const size = (await handle.stat()).size;
    res.writeHead(200, { ...attachmentHeaders(name), 'content-length': size });
    if (headOnly) return void res.end();
    const chunk = Buffer.alloc(256 * 1024);
    for (let at = 0; at < size;) {
      if (res.destroyed) return;
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, size - at), at);
      if (bytesRead === 0) {
        res.destroy(new Error(`${name} was truncated while it was sent`));
        return;
      }
      at += bytesRead;
      // a copy: the buffer is read into again while the socket may still hold this piece
      if (!res.write(Buffer.from(chunk.subarray(0, bytesRead)))) await drainedOrClosed(res);
    }
    res.end();
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * An OpenHands conversation folder as one JSON Lines body, in the order `check <folder>` reads
 * it: base_state.json's JSON on the first line (V1), then each event file's on its own line.
 * The event files are the ones listed when asked (one created since is not sent; a last one still
 * being written is left out); each is read through its checked descriptor. One that became a
 * FIFO or a link since it was listed cuts the answer off mid-way, so the page fails the load
 * rather than analyse a part. No content-length: the body is sent as it is read.
 */
async function sendConversation(headOnly: boolean, res: import('node:http').ServerResponse, dir: string, name: string, root: string): Promise<void> {
  let files: Awaited<ReturnType<typeof conversationFiles>>;
  try {
    files = await conversationFiles(dir, root);
  } catch (e) {
    return unreadable(res, name, e);
  }
  res.writeHead(200, attachmentHeaders(name));
  if (headOnly) return void res.end();
  const write = async (chunk: Buffer): Promise<void> => {
    if (res.destroyed) throw new Error('the page went away');
    if (!res.write(chunk)) await drainedOrClosed(res);
  };
  try {
    await writeConversation(files, root, write);
    res.end();
  } catch (e) {
    res.destroy(new Error(`${name}: ${(e as Error).message}`));
  }
}

/** A local session's file or folder that cannot be sent: 404, naming it and why (never its path). */
function unreadable(res: import('node:http').ServerResponse, name: string, e: unknown): void {
  json(res, 404, {
    error: e instanceof NotRegularFile ? `${name} is ${e.message}` : `cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
  });
}

/** The headers of a local session's body: a download of opaque bytes under its own (sanitised) name, never cached or sniffed. */
function attachmentHeaders(name: string): Record<string, string> {
  return {
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
}
