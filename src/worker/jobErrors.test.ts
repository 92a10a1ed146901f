// contract §2.5 "Past the first 1,000", in the dashboard's Worker: a file of many bad lines
// lists the first 1,000 errors and counts the rest by reason, and the Job never holds more
// than twice the cap (test/errors/inputErrorCap.test.ts does the same for `check`).
// eslint-disable-next-line no-restricted-imports -- tests run on Node; the Worker is handed its hash
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LISTED_INPUT_ERRORS } from '../core/inputErrorList.ts';
import { inputErrorReason } from '../core/inputErrorReasons.ts';
import { DEFAULT_STORE_LIMITS } from '../results/store.ts';
import { Job } from './job.ts';
import { relayInputErrors } from './relayInputErrors.ts';
import { junkTranscript as transcript } from '../../test/errors/junkTranscript.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
describe("the dashboard's Worker past the first 1,000", () => {
  it('lists the first 1,000, counts the rest by reason, and never holds more than twice that', () => {
    const job = new Job(1, { kind: 'url', url: 'x', name: 'x' }, {}, 'auto', sha256, DEFAULT_STORE_LIMITS);
    const t = transcript(20_000, 10);
    let most = 0;
    t.lines.forEach((text, i) => {
      job.line(text, i + 1);
      most = Math.max(most, job.errors.held);
    });
    expect(most).toBeLessThanOrEqual(2 * LISTED_INPUT_ERRORS);
    const s = job.summary();
    expect(s.sessions[0]!.turns).toBe(t.turns);
    expect(s.inputErrorCount).toBe(t.errorLines.length);
    expect(s.inputErrors.map((e) => e.line)).toEqual(t.errorLines.slice(0, 1000));
    expect(s.inputErrorAfterTurn).toHaveLength(1000);
    expect(s.inputErrorAfterTurn![999]).toBe(Math.floor(t.errorLines[999]! / 10));
    expect(s.inputErrorsOmitted).toEqual({
      count: t.errorLines.length - 1000,
      by_reason: { 'not-json': t.byReason.get('not-json'), 'not-object': t.byReason.get('not-object'), 'bad-type': t.byReason.get('bad-type') },
    });
  });

  it('OTLP spans the relay could not place are otlp (the dashboard following a live session)', () => {
    const relayed = relayInputErrors({ session_id: 's', input_errors: [{ trace_id: 't', span_id: 'p', message: 'late' }], input_errors_not_listed: 4 }, 7);
    expect(relayed.map((e) => inputErrorReason(e.message))).toEqual(['otlp', 'otlp']);
  });
});
