// contract §7 compact wire: bytes per snapshot, whole (version 1) and compact (texts equal
// to the previous snapshot's left out), on the committed samples and on generated bench
// transcripts. Printed, not asserted: the saving depends on how many texts a harness keeps.
import fs from 'node:fs';
import path from 'node:path';
import { compactTranscript } from '../src/core/compactTranscript.ts';
import { nodeSha256 } from '../src/node/platform.ts';
import { benchTranscript } from './transcripts.ts';

const SAMPLES = path.resolve(import.meta.dirname, '../public/samples');

function row(name: string, lines: string[]): void {
  const c = compactTranscript(lines, nodeSha256);
  const before = c.snapshotBytesBefore / c.snapshots;
  const after = c.snapshotBytesAfter / c.snapshots;
  const kb = (n: number): string => (n / 1024).toFixed(n < 10_240 ? 2 : 1).padStart(8);
  console.log(
    `  ${name.padEnd(44)} ${String(c.snapshots).padStart(6)} ${kb(before)} KB ${kb(after)} KB   ${(after / before).toFixed(3)}   ×${(before / after).toFixed(1)}`,
  );
}

export function benchCompact(): void {
  console.log('compact wire (contract §7): bytes per accepted snapshot, whole → compact');
  console.log(`  ${'transcript'.padEnd(44)} ${'snaps'.padStart(6)} ${'whole'.padStart(11)} ${'compact'.padStart(11)}   ratio   saving`);
  for (const f of fs
    .readdirSync(SAMPLES)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()) {
    row(`samples/${f}`, fs.readFileSync(path.join(SAMPLES, f), 'utf8').replace(/\n$/, '').split('\n'));
  }
  for (const [turns, spans, chars] of [
    [500, 200, 400],
    [2000, 200, 80],
  ] as const) {
    const file = benchTranscript(turns, spans, chars);
    row(`bench ${path.basename(file)}`, fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n'));
  }
}
