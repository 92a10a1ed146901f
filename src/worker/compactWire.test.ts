// contract §7 compact wire in the Worker: a compact transcript, fed in chunks of any size,
// gives the Worker the same sessions and signal counts as the engine finds in the whole one.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- the sample is read from disk
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactTranscript } from '../core/compactTranscript.ts';
import { Engine } from '../core/engine.ts';
import { CheckOutputBuilder } from '../core/checkOutput.ts';
import { chunkedBlob } from './chunkedBlob.testing.ts';
import { Controller } from './controller.ts';
import type { WorkerEvent } from './protocol.ts';

const SAMPLE = new URL('../../public/samples/two-sessions-interleaved.jsonl', import.meta.url);
const sha256 = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');

async function viaWorker(bytes: Uint8Array, chunk: number): Promise<Extract<WorkerEvent, { type: 'done' }>> {
  const events: WorkerEvent[] = [];
  const c = new Controller({ sha256, post: (e) => events.push(e), summaryEveryMs: 5 });
  c.handle({ type: 'open', job: 1, source: { kind: 'file', file: chunkedBlob(bytes, chunk) as File, name: 'compact.jsonl' }, userThresholds: {} });
  for (let i = 0; i < 4000; i++) {
    const d = events.find((e) => e.type === 'done');
    if (d !== undefined && d.type === 'done') return d;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no done event');
}

describe('compact wire in the Worker (contract §7)', () => {
  it('a compact transcript in chunks of any size gives what the engine finds in the whole one', async () => {
    const lines = fs.readFileSync(SAMPLE, 'utf8').replace(/\n$/, '').split('\n');
    const engine = new Engine({ sha256 });
    const builder = new CheckOutputBuilder();
    lines.forEach((l, i) => builder.add(engine.ingestLine(l, i + 1)));
    const expected = builder.build();
    const compact = compactTranscript(lines, sha256).lines;
    expect(compact.join('\n').length).toBeLessThan(lines.join('\n').length);
    const bytes = new TextEncoder().encode(compact.join('\n') + '\n');
    for (const chunk of [5, 97, 1 << 16]) {
      const done = await viaWorker(bytes, chunk);
      expect(done.state).toBe('done');
      expect(done.summary.inputErrorCount).toBe(0);
      expect(done.summary.sessions.map((s) => [s.sessionId, s.turns])).toEqual(expected.sessions.map((s) => [s.session_id, s.turns]));
      for (const [k, s] of expected.sessions.entries()) {
        const counts: Record<string, number> = {};
        for (const f of s.findings) counts[f.signal] = (counts[f.signal] ?? 0) + 1;
        expect(done.summary.sessions[k]!.signalCounts).toEqual(counts);
      }
    }
  });
});
