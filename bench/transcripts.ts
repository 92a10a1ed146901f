// Generated benchmark transcripts, cached in bench/out/ (gitignored) by their parameters.
import fs from 'node:fs';
import path from 'node:path';
import { allFaults, simulateSession } from '../src/sim/scenario.ts';
import { nodeSha256 } from '../src/node/platform.ts';

export const OUT = path.resolve(import.meta.dirname, 'out');

export function benchTranscript(turns: number, spans: number, textChars: number): string {
  fs.mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, `session-${turns}x${spans}x${textChars}.jsonl`);
  if (fs.existsSync(file)) return file;
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let buffered: string[] = [];
  let size = 0;
  const gen = simulateSession(
    { seed: 42, sessionId: `bench-${turns}`, turns, spans, textChars, nonAscii: true, pinned: 2, faults: allFaults(turns) },
    nodeSha256,
  );
  for (const msg of gen) {
    const line = JSON.stringify(msg) + '\n';
    buffered.push(line);
    size += line.length;
    if (size > 8 << 20) {
      fs.writeSync(fd, buffered.join(''));
      buffered = [];
      size = 0;
    }
  }
  fs.writeSync(fd, buffered.join(''));
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return file;
}
