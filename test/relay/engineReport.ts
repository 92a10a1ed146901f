// What two ways of feeding the engine are compared on (the relay's trusted and validated
// paths against the engine reading the lines itself): each session's verdicts and findings.
import path from 'node:path';
import { Engine, type Outcome } from '../../src/core/engine.ts';
import { CheckOutputBuilder } from '../../src/core/checkOutput.ts';
import { nodeSha256 } from '../../src/node/platform.ts';

export const sha256 = nodeSha256;
export const SAMPLES = path.resolve(import.meta.dirname, '../../public/samples');

/** Every line through `feed` on a fresh relay-style engine (no replay memory): verdicts and findings per session. */
export function engineReport(lines: readonly string[], feed: (engine: Engine, line: string, n: number) => Outcome) {
  const engine = new Engine({ sha256, replayMemory: 0 });
  const r = new CheckOutputBuilder();
  lines.forEach((l, i) => r.add(feed(engine, l, i + 1)));
  return r.build().sessions.map((s) => ({
    session: s.session_id,
    verdicts: s.verdicts,
    findings: s.findings.map((f) => ({ turn: f.turn, signal: f.signal, span_ids: f.span_ids, message: f.message })),
  }));
}
