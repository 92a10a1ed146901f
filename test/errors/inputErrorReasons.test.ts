// contract §2.5 "Past the first 1,000": each error is counted under the reason of the rule it
// breaks. Every error here is made by the reader that writes it (the engine, the line and
// array readers, the adapters' pipeline), so a reworded message fails here, not silently
// under `other`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine.ts';
import { inputErrorReason, INPUT_ERROR_REASONS, type InputErrorReason } from '../../src/core/inputErrorReasons.ts';
import { checkTranscript } from '../../src/cli/check.ts';
import { nodeSha256 } from '../../src/node/platform.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'errcap-reasons-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const span = (id: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({ span_id: id, text: 't', score: 1, text_sha256: null, ...over });
const snap = (sid: string, turn: unknown, spans: unknown = [span('x')], over: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'snapshot', session_id: sid, turn, spans, ...over });

/** [a line, the reason of its error]; each line is read by a fresh engine, except where it needs an earlier one */
const ENGINE_CASES: readonly (readonly [string, InputErrorReason, string[]?])[] = [
  ['{bad', 'not-json'],
  ['{"type":"snapshot","session_id":"a","turn":1,"spans":[{"span_id":"x","text":"t","score":NaN,"text_sha256":null}]}', 'not-json'],
  ['[1]', 'not-object'],
  ['"not valid JSON: a string"', 'not-object'],
  ['null', 'not-object'],
  [snap('a', 1).replace('"snapshot"', '"x"'), 'bad-type'],
  ['{"session_id":"a","turn":1,"spans":[]}', 'bad-type'],
  // a quoted value cannot move the error to another reason
  [snap('a', 1).replace('"snapshot"', '"not valid JSON: "'), 'bad-type'],
  ['{"type":"snapshot","turn":1,"spans":[]}', 'bad-session-id'],
  [snap('', 1), 'bad-session-id'],
  ['{"type":"snapshot","session_id":3,"turn":1,"spans":[]}', 'bad-session-id'],
  [snap('a', 1.5), 'bad-field'],
  [snap('a', 1e20), 'bad-field'],
  [snap('a', 1, [span('x', { score: '1' })]), 'bad-field'],
  [snap('a', 1, [{ span_id: 'x', text: 't', text_sha256: null }]), 'bad-field'],
  [snap('a', 1, [span('x', { tokens: -1 })]), 'bad-field'],
  [snap('a', 1, [span('not valid JSON: x', { pinned: 1 })]), 'bad-field'],
  [snap('a', 1, [], { rewrite: {} }), 'bad-field'],
  [snap('a', 1, {}), 'bad-field'],
  ['{"type":"session","session_id":"a","config":{"spread_floor":-5}}', 'bad-field'],
  ['{"type":"session","session_id":"a","title":3}', 'bad-field'],
  [snap('a', 1, [span('x'), span('x')]), 'duplicate-span-id'],
  [snap('a', 1, [span('x\ud800')]).replace('\ud800', '\\ud800'), 'lone-surrogate'],
  [snap('a', 1, [span('x', { text: 'x\\ud800' })]).replace('\\\\ud800', '\\ud800'), 'lone-surrogate'],
  [snap('a\\ud800', 1).replace('\\\\ud800', '\\ud800'), 'lone-surrogate'],
  [snap('z', 1), 'ordering', [snap('z', 2)]],
  ['{"type":"session","session_id":"z"}', 'ordering', [snap('z', 2)]],
  ['{"type":"session","session_id":"z","title":"b"}', 'ordering', ['{"type":"session","session_id":"z","title":"a"}']],
  [snap('a', 1, [], { x: JSON.parse('['.repeat(70) + ']'.repeat(70)) as unknown }), 'too-deep'],
  ['{"type":"session","session_id":"k","wire":"1.1"}', 'compact', []],
];

describe('the reason of each input error (contract §2.5)', () => {
  it.each(ENGINE_CASES.map(([text, reason, before], i) => ({ i, text, reason, before })))('engine case $i is $reason', ({ text, reason, before }) => {
    const engine = new Engine({ sha256: nodeSha256 });
    let lines = [...(before ?? []), text];
    // the compact case: a header declaring the compact wire, then a span leaving out its text with nothing to carry it from
    if (reason === 'compact')
      lines = [text, JSON.stringify({ type: 'snapshot', session_id: 'k', turn: 1, base_turn: 0, spans: [{ span_id: 'a', score: 1, text_sha256: null }] })];
    const outcomes = lines.map((l, n) => engine.ingestLine(l, n + 1));
    const last = outcomes[outcomes.length - 1]!;
    expect(last.kind, JSON.stringify(last)).toBe('error');
    if (last.kind !== 'error') return;
    expect(inputErrorReason(last.error.message), last.error.message).toBe(reason);
  });

  const fileCases: readonly (readonly [string, string | Buffer, InputErrorReason, { maxLineBytes?: number }?])[] = [
    ['utf8.jsonl', Buffer.concat([Buffer.from(snap('a', 1) + '\n'), Buffer.from([0xff, 0xfe, 0x0a])]), 'not-utf8'],
    ['long.jsonl', snap('a', 1) + '\n' + snap('a', 2, [span('x', { text: 'y'.repeat(4000) })]) + '\n', 'too-long', { maxLineBytes: 1024 }],
    ['array.json', `[${snap('a', 1)},\n${snap('a', 2)} x`, 'broken-structure'],
    ['array-end.json', `[${snap('a', 1)},\n{"type":`, 'broken-structure'],
    [
      'claude.jsonl',
      '{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"hi"}}\n{"type":"assistant",\n{"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":"again"}}\n',
      'not-json',
    ],
  ];
  it.each(fileCases.map(([name, body, reason, opts]) => ({ name, body, reason, opts })))(
    'a file read by check: $name is $reason',
    async ({ name, body, reason, opts }) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, body);
      const { report } = await checkTranscript(file, { userThresholds: {}, threads: 1, ...(opts ?? {}) });
      expect(report.input_errors.length, JSON.stringify(report.input_errors)).toBeGreaterThan(0);
      for (const e of report.input_errors) expect(inputErrorReason(e.message), e.message).toBe(reason);
    },
  );

  it('an event file of an OpenHands folder keeps its reason behind its name; an unknown sentence is other', () => {
    expect(inputErrorReason('event-3.json: not valid JSON: Unexpected token')).toBe('not-json');
    expect(inputErrorReason('event-3.json: cannot read: EACCES')).toBe('other');
    expect(inputErrorReason('something no reader writes')).toBe('other');
    expect(INPUT_ERROR_REASONS).toContain(inputErrorReason(''));
  });
});
