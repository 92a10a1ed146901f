// contract §7 reference scorer between the pipeline and the engine: which sessions it
// scores in each mode, that a session with any harness score reaches the engine exactly as
// it came, and reference_disagreement with `both`.
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the engine is handed its hash
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveThresholds } from '../../core/config.ts';
import { Engine, type Outcome } from '../../core/engine.ts';
import { ReferenceDisagreement } from '../../core/referenceDisagreement.ts';
import type { Finding } from '../../core/signals.ts';
import { TranscriptPipeline } from './pipeline.ts';
import { ScoringStage, type ScorerMode } from './scoringStage.ts';

const sha256 = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');

interface Span {
  span_id: string;
  text: string;
  score: number | null;
  text_sha256: string | null;
  pinned?: boolean;
  role?: string;
}
const span = (id: string, text: string, score: number | null, extra: Partial<Span> = {}): Span => ({
  span_id: id,
  text,
  score,
  text_sha256: score === null ? null : sha256(text),
  ...extra,
});
const snap = (sid: string, turn: number, spans: Span[]) => ({ type: 'snapshot', session_id: sid, turn, spans });

interface Run {
  /** what reached the engine, in order */
  seen: Record<string, unknown>[];
  outcomes: Outcome[];
  findings: Finding[];
}

function run(lines: unknown[], mode: ScorerMode, config: Record<string, number> = {}): Run {
  const engine = new Engine({ sha256, userThresholds: config });
  const disagreement = new ReferenceDisagreement();
  const out: Run = { seen: [], outcomes: [], findings: [] };
  const stage = new ScoringStage(
    {
      text: (text, line) => {
        out.seen.push(JSON.parse(text) as Record<string, unknown>);
        out.outcomes.push(engine.ingestLine(text, line));
      },
      value: (value, line, ns) => {
        out.seen.push(value as Record<string, unknown>);
        const o = engine.ingestParsedLine(value, line, ns);
        if (o.kind === 'turn') disagreement.observe(o, engine.thresholds(o.result.sessionId));
        out.outcomes.push(o);
      },
      error: () => undefined,
    },
    { mode, sha256 },
  );
  const pipeline = new TranscriptPipeline(stage);
  lines.forEach((l, i) => pipeline.line(JSON.stringify(l), i + 1));
  pipeline.end();
  for (const o of out.outcomes) if (o.kind === 'turn') out.findings.push(...o.result.findings);
  return out;
}

const scored = [
  { type: 'session', session_id: 'h' },
  snap('h', 1, [span('pin', 'keep the api stable', 0.9, { pinned: true }), span('a', 'api change log', 0.4), span('b', 'unrelated', 0.1)]),
  snap('h', 2, [span('pin', 'keep the api stable', 0.9, { pinned: true }), span('a', 'api change log', null), span('b', 'unrelated', 0.1)]),
];
const unscored = [
  snap('u', 1, [
    span('task', 'fix the login cookie race', null, { role: 'user', pinned: true }),
    span('x', 'cookie set after login resolves', null),
    span('y', 'weather', null),
  ]),
  snap('u', 2, [
    span('task', 'fix the login cookie race', null, { role: 'user', pinned: true }),
    span('x', 'cookie set after login resolves', null),
    span('z', 'lunch menu', null),
  ]),
];

describe('ScoringStage', () => {
  it('auto: a session with any harness score reaches the engine exactly as it came', () => {
    const r = run(scored, 'auto');
    expect(r.seen).toEqual(scored);
    expect(run(scored, 'harness').findings).toEqual(r.findings);
  });

  it('auto: a native session that never carries a score still reaches the engine exactly as it came (contract §7)', () => {
    const r = run(unscored, 'auto');
    expect(r.seen).toEqual(unscored);
    expect(r.findings).toEqual(run(unscored, 'harness').findings);
  });

  it('both: a session whose spans never carry a score gets the reference’s scores, bound to their text', () => {
    const r = run(unscored, 'both');
    const spans = r.seen[0]!.spans as Span[];
    expect(spans.map((s) => s.text_sha256)).toEqual(spans.map((s) => sha256(s.text)));
    expect(spans.map((s) => s.score)).toEqual([1, expect.any(Number), 0]);
    expect(spans[1]!.score).toBeGreaterThan(0);
    // the engine sees bound scores: nothing stale, unbound or unscored
    expect(r.findings.filter((f) => ['unscored_span', 'unbound_score', 'stale_score'].includes(f.signal))).toEqual([]);
    // harness mode leaves them unscored, as before
    expect(run(unscored, 'harness').findings.filter((f) => f.signal === 'unscored_span')).toHaveLength(2);
  });

  it('both: a session whose first snapshots carry no score but a later one does is the harness’s throughout', () => {
    const late = [
      ...unscored,
      snap('u', 3, [span('task', 'fix the login cookie race', 0.9, { role: 'user', pinned: true }), span('x', 'cookie set after login resolves', 0.5)]),
    ];
    const scores = (vs: readonly Record<string, unknown>[]): unknown[] => vs.map((v) => (v.spans as Span[]).map((sp) => sp.score));
    expect(scores(run(late, 'both').seen)).toEqual(scores(late));
  });

  it('keeps each session’s decision apart when sessions interleave', () => {
    const mixed = [scored[0], unscored[0], scored[1], unscored[1], scored[2]];
    const r = run(mixed, 'both');
    const h = r.seen.filter((v) => v.session_id === 'h');
    const u = r.seen.filter((v) => v.session_id === 'u');
    expect(h.map((v) => (v.spans as Span[] | undefined)?.map((sp) => sp.score))).toEqual(
      [scored[0], scored[1], scored[2]].map((v) => ((v as Record<string, unknown>).spans as Span[] | undefined)?.map((sp) => sp.score)),
    );
    expect((u[0]!.spans as Span[]).every((s) => typeof s.score === 'number')).toBe(true);
  });

  it('marks the header of a session it scores, so a live reader can say where the scores came from', () => {
    expect(run(scored, 'reference').seen[0]).toEqual({ type: 'session', session_id: 'h', scores: 'reference' });
    // scores that are the harness's are not marked
    expect(run(scored, 'both').seen[0]).toEqual({ type: 'session', session_id: 'h' });
    expect(run(scored, 'auto').seen[0]).toEqual({ type: 'session', session_id: 'h' });
  });

  it('reference: harness scores are replaced', () => {
    const r = run(scored, 'reference');
    const spans = r.seen[1]!.spans as Span[];
    expect(spans.map((s) => s.score)).not.toEqual([0.9, 0.4, 0.1]);
    expect(spans.every((s) => s.text_sha256 === sha256(s.text))).toBe(true);
  });

  it('both: harness scores stay, each turn carries its rank agreement with the reference', () => {
    const r = run(scored, 'both');
    expect((r.seen[1]!.spans as Span[]).map((s) => s.score)).toEqual([0.9, 0.4, 0.1]);
    expect(r.seen[1]!.reference_agreement).toBe(1);
    // turn 2: two spans scored by both
    expect(typeof r.seen[2]!.reference_agreement).toBe('number');
  });

  it('reference_disagreement fires when agreement stays below the floor for collapse_turns snapshots', () => {
    // the harness ranks the unrelated span first and the matching span last: τ = −1 each turn
    const inverted = [1, 2, 3].map((t) =>
      snap('inv', t, [span('task', 'fix the login cookie race', 0.1, { role: 'user' }), span('x', 'login cookie race fixed', 0.2), span('y', 'weather', 0.9)]),
    );
    const r = run(inverted, 'both');
    expect(r.seen.map((v) => v.reference_agreement)).toEqual([-1, -1, -1]);
    expect(r.findings.filter((f) => f.signal === 'reference_disagreement').map((f) => [f.turn, f.severity, f.span_ids])).toEqual([
      [2, 'warning', []],
      [3, 'warning', []],
    ]);
    // last among a turn's findings (contract §4.1 order, signals.ts)
    const turn3 = (r.outcomes.filter((o) => o.kind === 'turn')[2] as Extract<Outcome, { kind: 'turn' }>).result.findings;
    expect(turn3[turn3.length - 1]!.signal).toBe('reference_disagreement');
    // configurable like the others, and never without `both`
    expect(run(inverted, 'both', { reference_agreement_floor: -1 }).findings.some((f) => f.signal === 'reference_disagreement')).toBe(false);
    expect(
      run(inverted, 'both', { collapse_turns: 3 })
        .findings.filter((f) => f.signal === 'reference_disagreement')
        .map((f) => f.turn),
    ).toEqual([3]);
    expect(run(inverted, 'auto').findings.some((f) => f.signal === 'reference_disagreement')).toBe(false);
  });

  it('the floor is a threshold like the others: header config and its range', () => {
    expect(resolveThresholds({ reference_agreement_floor: 0.3 }, {}).reference_agreement_floor).toBe(0.3);
    const engine = new Engine({ sha256 });
    expect(engine.ingestValue({ type: 'session', session_id: 'x', config: { reference_agreement_floor: 2 } }, 1).kind).toBe('error');
  });

  it('leaves a malformed snapshot for the engine to report, unscored', () => {
    const bad = { type: 'snapshot', session_id: 'u', turn: 1, spans: [{ span_id: 'a' }] };
    const r = run([bad], 'auto');
    expect(r.seen).toEqual([bad]);
    expect(r.outcomes[0]!.kind).toBe('error');
  });
});
