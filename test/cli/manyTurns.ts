// A wire transcript (contract §2) of `turns` tiny snapshots, one span each, written line by
// line: the "2.5M tiny calls" of issue 39 at any size (test/cli/jsonPieces.test.ts writes a
// small one, `npm run bench -- stream-json` the full 2.5M).
import crypto from 'node:crypto';
import fs from 'node:fs';

export function writeManyTurns(file: string, turns: number): void {
  const text = 'tiny';
  const sha = crypto.createHash('sha256').update(text, 'utf8').digest('hex');
  const fd = fs.openSync(file, 'w');
  let held: string[] = [JSON.stringify({ type: 'session', session_id: 'many' })];
  for (let t = 1; t <= turns; t++) {
    held.push(JSON.stringify({ type: 'snapshot', session_id: 'many', turn: t, spans: [{ span_id: 's', text, score: 0.5, text_sha256: sha, tokens: 1 }] }));
    if (held.length >= 10_000) {
      fs.writeSync(fd, held.join('\n') + '\n');
      held = [];
    }
  }
  fs.writeSync(fd, held.join('\n') + '\n');
  fs.closeSync(fd);
}
