// How the relay answers over HTTP: JSON bodies, refused WebSocket upgrades, and the
// bound on what an answer echoes back of the request (an id can be megabytes long).
import http, { type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Characters of a client-chosen string (a session id) an answer or an error repeats. */
const SHOWN_CHARS = 200;

/** A client-chosen string as an answer quotes it: JSON-quoted and cut to a bounded length. */
export function shown(text: string): string {
  return text.length <= SHOWN_CHARS ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, SHOWN_CHARS))}… (${text.length} characters)`;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export function rejectUpgrade(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: message });
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export function drainedOrClosed(res: ServerResponse): Promise<void> {
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
