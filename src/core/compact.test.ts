// contract §7 compact wire: the sender's side compares strings (never a hash it was given),
// and the reader's carry-forward is the same whether it reads a whole log or a stream.
// eslint-disable-next-line no-restricted-imports -- the tests run on Node; the engine itself is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sameSnapshotModuloOmissions, TextCarry, TextOmitter } from './compact.ts';
import { jsonEqual } from './equality.ts';

const sha = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
const span = (id: string, text: string, claim = sha(text)): { span_id: string; text: string; score: number; text_sha256: string } => ({
  span_id: id,
  text,
  score: 0.5,
  text_sha256: claim,
});

describe('TextOmitter (the clients)', () => {
  it('leaves out only texts equal as strings to the last sent ones, and names that turn', () => {
    const o = new TextOmitter();
    const first = { session_id: 's', turn: 4, spans: [span('a', 'x'), span('b', 'y')] };
    expect(o.compact(first)).toBe(first); // nothing sent before: whole
    const out = o.compact({ session_id: 's', turn: 7, spans: [span('a', 'x'), span('b', 'y2'), span('c', 'z')] }) as { base_turn: number; spans: object[] };
    expect(out.base_turn).toBe(4);
    expect(out.spans.map((s) => 'text' in s)).toEqual([false, true, true]);
  });

  it('sends a rewritten text even when the harness kept the old text_sha256 (the stale score must be seen)', () => {
    const o = new TextOmitter();
    o.compact({ session_id: 's', turn: 1, spans: [span('a', 'use tabs')] });
    const out = o.compact({ session_id: 's', turn: 2, spans: [span('a', 'use spaces', sha('use tabs'))] });
    expect((out.spans[0] as { text?: string }).text).toBe('use spaces');
    expect('base_turn' in out).toBe(false);
  });

  it('after reset or forget, the next snapshot is whole', () => {
    const o = new TextOmitter();
    o.compact({ session_id: 's', turn: 1, spans: [span('a', 'x')] });
    o.compact({ session_id: 't', turn: 1, spans: [span('a', 'x')] });
    o.forget('s');
    expect('base_turn' in o.compact({ session_id: 's', turn: 2, spans: [span('a', 'x')] })).toBe(false);
    expect('base_turn' in o.compact({ session_id: 't', turn: 2, spans: [span('a', 'x')] })).toBe(true);
    o.reset();
    expect('base_turn' in o.compact({ session_id: 't', turn: 3, spans: [span('a', 'x')] })).toBe(false);
  });
});

describe('TextCarry (exports and replay)', () => {
  it('expands what TextOmitter left out, session by session, back to the whole snapshots', () => {
    const o = new TextOmitter();
    const carry = new TextCarry();
    const header = { type: 'session', session_id: 's', wire: '1.1' };
    expect(carry.expand(header)).toBe(header);
    const whole = [1, 2, 3, 4].map((turn) => ({ type: 'snapshot', session_id: 's', turn, spans: [span('a', 'keep'), span('b', `v${turn >> 1}`)] }));
    for (const w of whole) {
      const sent = o.compact(w);
      expect(carry.expand(JSON.parse(JSON.stringify(sent)))).toEqual(w);
    }
  });

  it('leaves a session that did not declare the compact wire as it is', () => {
    const carry = new TextCarry();
    carry.expand({ type: 'snapshot', session_id: 'v', turn: 1, spans: [span('a', 'x')] });
    const compact = { type: 'snapshot', session_id: 'v', turn: 2, base_turn: 1, spans: [{ span_id: 'a', score: 0.5, text_sha256: null }] };
    expect(carry.expand(compact)).toBe(compact);
  });
});

describe('sameSnapshotModuloOmissions (retries at the relay)', () => {
  it('a whole resend of a compact stored snapshot is the same; another score or id is not', () => {
    const whole = { type: 'snapshot', session_id: 's', turn: 2, spans: [span('a', 'x'), span('b', 'y')] };
    const { text: _t, ...aNoText } = span('a', 'x');
    const compact = { ...whole, base_turn: 1, spans: [aNoText, span('b', 'y')] };
    expect(sameSnapshotModuloOmissions(compact, whole, jsonEqual)).toBe(true);
    expect(sameSnapshotModuloOmissions(whole, compact, jsonEqual)).toBe(true);
    expect(sameSnapshotModuloOmissions(compact, { ...whole, spans: [span('a', 'x'), { ...span('b', 'y'), score: 0.9 }] }, jsonEqual)).toBe(false);
    expect(sameSnapshotModuloOmissions(compact, { ...whole, spans: [span('a', 'x'), span('b', 'y2')] }, jsonEqual)).toBe(false);
    expect(sameSnapshotModuloOmissions(compact, { ...whole, turn: 3 }, jsonEqual)).toBe(false);
  });
});
