// check's human output names turns by their headline (src/report/headline.ts, issue 24): the
// words the dashboard's banner, the overview and the print page use for the same turns.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckOutput, SessionOutput } from '../core/checkOutput.ts';
import type { Finding, Verdict } from '../core/signals.ts';
import { checkTranscript } from './check.ts';
import { humanOutput } from './humanOutput.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function verdict(turn: number, over: Partial<Verdict> = {}): Verdict {
  return { turn, action: 'prune_ok', prune_safe: true, recompute: [], drop: [], ...over };
}

function finding(turn: number, signal: Finding['signal'], severity: Finding['severity']): Finding {
  return { turn, signal, severity, span_ids: [], message: 'm' };
}

function session(verdicts: Verdict[], findings: Finding[]): SessionOutput {
  return {
    session_id: 's',
    turns: verdicts.length,
    findings,
    verdicts,
    metrics: verdicts.map((v) => ({ turn: v.turn, tokens_total: 1, mean_score: null, median_score: null, stdev_score: null, n_scored: 0, orphan_edges: 0 })),
  } as SessionOutput;
}

const text = (s: SessionOutput, errors = 0): string =>
  humanOutput({ sessions: [s], input_errors: Array.from({ length: errors }, (_, i) => ({ line: i + 1, message: 'bad' })) } as CheckOutput, 'f.jsonl');

describe("check's human output", () => {
  it('lists a prune_ok turn that fired a fault as FAULT, and one that dropped a span as DROP', () => {
    const out = text(
      session(
        [verdict(1), verdict(2), verdict(3, { drop: ['p1'] }), verdict(4), verdict(5)],
        [finding(2, 'orphaned_parent', 'fault'), finding(3, 'poisoned_span', 'fault'), finding(5, 'spread_collapse', 'warning')],
      ),
    );
    expect(out).toContain('headline other than PRUNE OK: 3 of 5 turns');
    expect(out).toMatch(/^ {4}DROP {13}turn 3: p1$/m);
    expect(out).toMatch(/^ {4}FAULT {12}turn 2$/m);
    expect(out).toMatch(/^ {4}PRUNE WITH CARE {2}turn 5$/m);
    // worst first, as the headline ranks them
    expect(out.indexOf('DROP')).toBeLessThan(out.indexOf('FAULT'));
    expect(out.indexOf('FAULT ')).toBeLessThan(out.indexOf('PRUNE WITH CARE'));
    expect(out).not.toContain('prune_ok');
    expect(out).not.toContain('pruning may proceed');
  });

  it('names the spans of the first recompute and a drop beside it', () => {
    const out = text(session([verdict(1, { action: 'recompute', prune_safe: false, recompute: ['a', 'b'], drop: ['c'] }), verdict(2)], []));
    expect(out).toMatch(
      /RECOMPUTE {8}turn 1\n {21}first at turn 1: 2 spans \(a, b\)\n {21}and drop c \(poisoned, do not rescore\)\n {21}Recompute these scores/,
    );
  });

  it('says PRUNE OK on every turn only with no fault, and qualifies it when lines were lost', () => {
    const ok = text(session([verdict(1), verdict(2)], [finding(1, 'unscored_span', 'info')]));
    expect(ok).toContain('headline: PRUNE OK on every turn\n    Every score is bound');
    const lost = text(session([verdict(1)], []), 2);
    expect(lost).toContain('no findings in the turns analysed');
    expect(lost).toContain('headline: PRUNE OK on every turn analysed\n    2 input lines could not be read (1 turn analysed)');
    expect(lost).not.toContain('pruning may proceed');
  });

  it('calls the all-faults sample as the dashboard does (turn 112: DROP m194; 90–101: FAULT)', async () => {
    const r = await checkTranscript(path.join(ROOT, 'public/samples/all-faults.jsonl'), { userThresholds: {} });
    const out = humanOutput(r.report, 'all-faults.jsonl', r.titles);
    expect(out).toContain('headline other than PRUNE OK: 86 of 150 turns');
    expect(out).toMatch(/FREEZE {11}turns 132–145\n/);
    expect(out).toMatch(/RECOMPUTE {8}turns 10–21, 30–41, 50–61, 70–81\n {21}first at turn 10: 3 spans \(m18, m19, m20\)/);
    expect(out).toMatch(/DROP {13}turns 112–121: m194\n/);
    expect(out).toMatch(/FAULT {12}turns 90–101, 111\n/);
    expect(out).toMatch(/PRUNE WITH CARE {2}turn 110\n/);
  });

  // contract §8.9: a session where no score detector ran (reference scope, §8.1)
  const SCORED_WORDS = [/PRUNE OK/, /pruning may proceed/i, /\bbound\b/i];

  it('gives an imported agent session its §8.9 headline, never the scored-loop words', async () => {
    const r = await checkTranscript(path.join(ROOT, 'e2e/fixtures/claude-code-compactions.jsonl'), { userThresholds: {} });
    const out = humanOutput(r.report, 'cc.jsonl', r.titles, r.pressureThresholds);
    expect(out).toContain(
      '  headline at turn 10, the last (contract §8.9: no score detector ran):\n    LOSS CONFIRMED: turn 6 re-read a file the compaction at turn 5 dropped; 2 compactions, 1 confirmed loss;',
    );
    for (const w of SCORED_WORDS) expect(out).not.toMatch(w);
    const p = await checkTranscript(path.join(ROOT, 'e2e/fixtures/claude-code-pressure.jsonl'), { userThresholds: {} });
    const calm = humanOutput(p.report, 'p.jsonl', p.titles, p.pressureThresholds);
    expect(calm).toContain('    CONTEXT OK: 1 compaction, no confirmed loss; 5% of the window (9,000 of 200,000 tokens).');
    for (const w of SCORED_WORDS) expect(calm).not.toMatch(w);
  });

  it("says NEAR THE LIMIT by the session's own pressure threshold", async () => {
    const file = path.join(ROOT, 'e2e/fixtures/claude-code-pressure.jsonl');
    const r = await checkTranscript(file, { userThresholds: {} });
    // the pressure fixture ends at 9,000 of 200,000 tokens: a threshold of 0.04 puts it near the limit
    const near = await checkTranscript(file, { userThresholds: { pressure_threshold: 0.04 } });
    expect(humanOutput(near.report, 'p.jsonl', near.titles, near.pressureThresholds)).toContain(
      '    NEAR THE LIMIT: 5% of the window (9,000 of 200,000 tokens); 1 compaction',
    );
    expect(humanOutput(r.report, 'p.jsonl', r.titles, r.pressureThresholds)).toContain('CONTEXT OK');
  });
});
