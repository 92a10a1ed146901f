// The worker thread `context-health report` starts first thing (src/cli/rendererBundle.ts):
// it loads the drawing side (happy-dom's window, React, Recharts, the chart modules: about
// 1 s of CPU) on the machine's other core while the CLI's thread reads and analyses the
// file, hashes the file, draws the charts as soon as the CLI's thread knows what they show
// (`early`: often long before the file is read to the end), then composes the report from
// the final input that thread posts (draw.ts) and posts the files back, their bytes
// transferred, not copied.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { fileBuffers, type DrawReply, type DrawRequest } from '../report/renderer.ts';
import { draw, prepare, startDrawing, type Drawing } from './draw.ts';
import { phase } from '../node/phases.ts';

const port = parentPort;
if (port === null) throw new Error('drawWorker.ts runs as a worker thread');
const prepared = prepare();
prepared.catch(() => {}); // awaited below; a failure is posted there

async function sha256(file: string): Promise<string> {
  // loading first: it is what the CLI's thread waits for last, and hashing after it keeps
  // this thread to one core's worth of work while the CLI's thread reads the file
  await prepared.catch(() => {});
  const hash = createHash('sha256');
  // 1 MiB reads: a sixteenth of the system calls and stream turns of the 64 KiB default
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  phase('sha256 hashed');
  return hash.digest('hex');
}

/**
 * The first report drawn with no code cache of this bundle writes one (the loader's hook,
 * src/cli/rendererBundle.ts), before its files are posted: the CLI ends the thread soon after.
 */
function saveCodeCache(): void {
  const g = globalThis as { __contextHealthSaveCodeCache?: () => void };
  const save = g.__contextHealthSaveCodeCache;
  delete g.__contextHealthSaveCodeCache;
  save?.();
}

/** the hash of the file asked for, which early charts' stamps take */
let hashed: Promise<string> | undefined;
/** the charts drawn while the CLI's thread still reads the file, if it posted them */
let early: Promise<Drawing> | undefined;

const post = (reply: DrawReply): void => {
  port.postMessage(reply, 'files' in reply ? fileBuffers(reply.files) : []);
};

port.on('message', (request: DrawRequest) => {
  if (request.kind === 'sha256') {
    hashed = sha256(request.file);
    hashed.then(
      (sha) => post({ kind: 'sha256', sha256: sha }),
      (e: unknown) => post({ kind: 'sha256', error: (e as Error).message }),
    );
    return;
  }
  if (request.kind === 'early') {
    // after the hash (0.2 s): interleaved with the drawing it is starved (one read a turn of
    // the event loop between long renders), and the figures wait for it before rasterising
    const sha256 = hashed;
    early = prepared
      .then(() => sha256?.catch(() => {}))
      .then(() => {
        phase('early charts started');
        return startDrawing(request.input, { sha256 });
      });
    early.catch(() => {}); // awaited with the final input
    return;
  }
  void (async () => {
    try {
      await prepared;
      const files = early === undefined ? await draw(request) : await (await early).finish(request);
      saveCodeCache();
      post(files === null ? { kind: 'files', redo: true } : { kind: 'files', files });
    } catch (e) {
      post({ kind: 'files', error: (e as Error).message });
    }
  })();
});
