// The worker thread `context-health report` starts first thing (src/cli/reportDrawer.ts):
// it loads the drawing side (happy-dom's window, React, Recharts, the chart modules: about
// 1 s of CPU) on the machine's other core while the CLI's thread reads and analyses the
// file, then draws the report from the small input that thread posts (draw.ts) and posts
// the files back, their bytes transferred, not copied.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { DrawReply, DrawRequest } from '../report/renderer.ts';
import { draw, prepare } from './draw.ts';
import { phase } from '../node/phases.ts';

const port = parentPort;
if (port === null) throw new Error('drawWorker.ts runs as a worker thread');
const prepared = prepare();
prepared.catch(() => {}); // awaited below; a failure is posted there

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  // 1 MiB reads: a sixteenth of the system calls and stream turns of the 64 KiB default
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  phase('sha256 hashed');
  return hash.digest('hex');
}

port.on('message', (request: DrawRequest) => {
  void (async () => {
    // loading first: it is what the CLI's thread waits for last, and hashing after it keeps
    // this thread to one core's worth of work while the CLI's thread reads the file
    await prepared.catch(() => {});
    if (request.kind === 'sha256') {
      let reply: DrawReply;
      try {
        reply = { kind: 'sha256', sha256: await sha256(request.file) };
      } catch (e) {
        reply = { kind: 'sha256', error: (e as Error).message };
      }
      port.postMessage(reply);
      return;
    }
    try {
      await prepared;
      const files = await draw(request);
      const reply: DrawReply = { kind: 'files', files };
      port.postMessage(reply, [...new Set(files.map((f) => f.bytes.buffer as ArrayBuffer))]);
    } catch (e) {
      const reply: DrawReply = { kind: 'files', error: (e as Error).message };
      port.postMessage(reply);
    }
  })();
});
