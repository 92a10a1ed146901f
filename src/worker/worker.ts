// The Worker entry: hash-wasm's sha256 set up once, then every message to the Controller.
import { createSHA256 } from 'hash-wasm';
import { Controller } from './controller.ts';
import { textSha256 } from './textSha256.ts';
import type { PoolWorker } from './parsePool.ts';
import type { Request, WorkerEvent } from './protocol.ts';

const scope = self as unknown as {
  onmessage: ((ev: MessageEvent<Request>) => void) | null;
  postMessage: (message: WorkerEvent, options?: { transfer?: Transferable[] }) => void;
  addEventListener(type: 'error', listener: (ev: ErrorEvent) => void): void;
  addEventListener(type: 'unhandledrejection', listener: (ev: PromiseRejectionEvent) => void): void;
};

// Listening starts before the hasher is ready (messages are not lost); handling waits for it.
const ready = createSHA256().then((hasher) => {
  return new Controller({
    sha256: textSha256(hasher),
    post: (event, transfer) => scope.postMessage(event, { transfer: transfer ?? [] }),
    // a dropped file's lines are parsed in a few nested Workers (docs/dashboard.md "Parsing Workers")
    parseWorker: () => new Worker(new URL('./parseWorker.ts', import.meta.url), { type: 'module', name: 'parse' }) as unknown as PoolWorker,
  });
});

scope.onmessage = (ev) => {
  void ready.then((controller) => controller.handle(ev.data));
};

// An error thrown anywhere in here (a socket or timer callback, a rejected promise) would
// otherwise only reach the console while the screen kept saying 'Live': the current job is
// stopped and says why (the client reports the errors this cannot catch, such as a failed load).
scope.addEventListener('error', (ev) => {
  ev.preventDefault();
  void ready.then((controller) => controller.fail(ev.error ?? ev.message));
});
scope.addEventListener('unhandledrejection', (ev) => {
  ev.preventDefault();
  void ready.then((controller) => controller.fail(ev.reason));
});
