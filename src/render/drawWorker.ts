// The worker thread `context-health report` starts first thing (src/cli/reportDrawer.ts):
// it loads the drawing side (happy-dom's window, React, Recharts, the chart modules: about
// 1 s of CPU) on the machine's other core while the CLI's thread reads and analyses the
// file, then draws the report from the small input that thread posts (draw.ts) and posts
// the files back, their bytes transferred, not copied.
import { parentPort } from 'node:worker_threads';
import type { DrawInput, DrawReply } from '../report/renderer.ts';
import { draw, prepare } from './draw.ts';

const port = parentPort;
if (port === null) throw new Error('drawWorker.ts runs as a worker thread');
const prepared = prepare();
prepared.catch(() => {}); // awaited below; a failure is posted there

port.on('message', (input: DrawInput) => {
  void (async () => {
    try {
      await prepared;
      const files = await draw(input);
      const reply: DrawReply = { files };
      port.postMessage(reply, [...new Set(files.map((f) => f.bytes.buffer as ArrayBuffer))]);
    } catch (e) {
      const reply: DrawReply = { error: (e as Error).message };
      port.postMessage(reply);
    }
  })();
});
