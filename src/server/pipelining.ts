// HTTP/1.1 pipelining: a client may send many requests on one connection before reading
// any answer. Node parses them all and calls the handler for each at once, and the
// answers that cannot be sent yet wait in memory: 5,000 pipelined transcript downloads
// that were never read once held 1.4 GB. Here a connection's requests are answered one at
// a time, the next starting when the answer before it is finished (handed to the socket,
// which the routes fill only as fast as it drains), and the socket is not read while
// requests wait, so a client that does not read is slowed by TCP, not buffered for.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Line {
  busy: boolean;
  waiting: { req: IncomingMessage; res: ServerResponse }[];
}

export function oneAtATime(handle: Handler): Handler {
  const lines = new WeakMap<Socket, Line>();
  const start = (socket: Socket, line: Line, req: IncomingMessage, res: ServerResponse): void => {
    line.busy = true;
    let done = false;
    const next = (): void => {
      if (done) return;
      done = true;
      line.busy = false;
      const after = line.waiting.shift();
      if (after === undefined) return;
      // the last one waiting may still need its body from the socket; the others were parsed whole
      if (line.waiting.length === 0) socket.resume();
      start(socket, line, after.req, after.res);
    };
    res.once('finish', next);
    res.once('close', next);
    handle(req, res);
  };
  return (req, res) => {
    const socket = req.socket;
    let line = lines.get(socket);
    if (line === undefined) lines.set(socket, (line = { busy: false, waiting: [] }));
    if (!line.busy) return start(socket, line, req, res);
    line.waiting.push({ req, res });
    socket.pause();
  };
}
