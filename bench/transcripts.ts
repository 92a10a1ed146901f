// Generated benchmark transcripts, cached in bench/out/ (gitignored) by their parameters.
import fs from 'node:fs';
import path from 'node:path';
import { allFaults, simulateSession } from '../src/sim/scenario.ts';
import { nodeSha256 } from '../src/node/platform.ts';

export const OUT = path.resolve(import.meta.dirname, 'out');

type ScenarioConfig = Parameters<typeof simulateSession>[0];

/**
 * A simulated session written to `file` once (kept while it exists): lines buffered into
 * large writes, and written to a temporary name first so an interrupted run leaves no half file.
 */
export function writeSimulated(file: string, config: ScenarioConfig): string {
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let buffered: string[] = [];
  let size = 0;
  for (const msg of simulateSession(config, nodeSha256)) {
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

export function benchTranscript(turns: number, spans: number, textChars: number): string {
  return writeSimulated(path.join(OUT, `session-${turns}x${spans}x${textChars}.jsonl`), {
    seed: 42,
    sessionId: `bench-${turns}`,
    turns,
    spans,
    textChars,
    nonAscii: true,
    pinned: 2,
    faults: allFaults(turns),
  });
}
