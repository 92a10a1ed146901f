// Transcript lines that take every way through check's parsing threads and around them
// (src/node/lineRecords.ts): shared by the differential test (threads.test.ts) and the
// records' own test.
import crypto from 'node:crypto';

const sha = (t: string): string => crypto.createHash('sha256').update(t, 'utf8').digest('hex');

const span = (id: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  span_id: id,
  text,
  score: 0.5,
  text_sha256: sha(text),
  tokens: 4,
  ...extra,
});

/**
 * Lines that take every way through the parsing threads and around them: records with
 * repeated and changed texts, shapes, roles, parents and unknown fields; and lines the
 * threads must leave to the main thread (errors, headers, compact snapshots, -0, lone
 * surrogates, layouts a record cannot keep).
 */
export function edgeLines(): string[] {
  const base = [span('a', 'alpha ü'), span('b', 'beta', { role: 'user', derived_from: ['a'] }), span('c', '中文 🌍', { pinned: true })];
  const at = (turn: number, spans = base, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ type: 'snapshot', session_id: 's', turn, ts: `2026-01-0${turn % 9}T00:00:00Z`, spans, ...extra });
  const lines: string[] = [
    '\uFEFF' + JSON.stringify({ type: 'session', session_id: 's', title: 'edges 🌍', config: { drift_turns: 2 } }),
    at(1),
    at(2, [base[0]!, { ...base[1]!, score: 0.7 }, base[2]!]),
    '{"type":"snapshot", not json',
    at(3, [base[0]!, { ...base[1]!, text: 'beta changed', text_sha256: sha('beta') }, base[2]!]),
    '',
    '   \t',
    at(4, [{ ...base[0]!, meta: { note: 'unknown field', n: [1, 2] } }, base[1]!, base[2]!]),
    at(5, [base[0]!, { ...base[1]!, score: 0 }, base[2]!]).replace('"score":0,', '"score":-0,'),
    at(6, [base[0]!, { ...base[1]!, tokens: 1e400 }]).replace('"tokens":null', '"tokens":1e400'),
    at(7, [base[0]!, base[2]!], { pruned: ['b'], reference_agreement: 0.2 }),
    at(7), // replayed turn? no: a second, different snapshot of turn 7
    at(7, [base[0]!, base[2]!], { pruned: ['b'], reference_agreement: 0.2 }), // replayed
    JSON.stringify({ type: 'snapshot', session_id: 's', turn: 8, spans: [span('a', 'x'), span('a', 'y')] }), // duplicate id
    at(9, [span('lone', 'x')]).replace('"text":"x"', '"text":"\\ud800x"'), // a lone surrogate
    at(10, [span('esc', 'é')]).replace('"text":"é"', '"text":"\\u00e9"'), // an escape above \u007F
    at(11, [span('nul', 'a\u0000b')]),
    at(12, [span('py', 'spaced')])
      .replace(/":/g, '": ')
      .replace(/,"/g, ', "'), // Python's json.dumps layout
    at(13, [span('dup', 'one')]).replace('"text":"one"', '"text":"zero","text":"one"'), // a duplicate key
    at(14, [span('bad-score', 'x', { score: 'high' })]),
    at(15, [span('id é', 'x')]), // non-ASCII outside the texts
    '[1, 2]',
    'null',
    JSON.stringify({ type: 'session', session_id: 'c', wire: '1.1' }),
    JSON.stringify({ type: 'snapshot', session_id: 'c', turn: 1, spans: [span('x', 'kept text'), span('y', 'why')] }),
    JSON.stringify({
      type: 'snapshot',
      session_id: 'c',
      turn: 2,
      base_turn: 1,
      spans: [{ span_id: 'x', score: 0.4, text_sha256: sha('kept text') }, span('y', 'why')],
    }),
    at(16).replace('"spans"', '"__proto__":{"p":1},"spans"'),
    JSON.stringify({ type: 'snapshot', session_id: 'other', turn: 1, spans: base }), // interleaved session
    at(17),
    at(18, [...base, span('d', 'delta')]),
    at(19, [base[2]!, base[0]!, base[1]!]), // reordered
    at(20, [{ tokens: 4, text: 'alpha ü', span_id: 'a', score: 0.5, text_sha256: sha('alpha ü') }, base[1]!, base[2]!]), // another key order
  ];
  return lines;
}
