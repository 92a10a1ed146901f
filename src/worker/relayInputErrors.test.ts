import { describe, expect, it } from 'vitest';
import { relayInputErrors } from './relayInputErrors.ts';

describe('relayInputErrors', () => {
  it('lists each span the relay could not place, with the frame seq as its line, and the count of unlisted ones', () => {
    const data = {
      type: 'snapshot',
      session_id: 'conv-1',
      turn: 4,
      spans: [],
      input_errors: [
        { trace_id: 'abc', span_id: '01', message: 'arrived after turn 4 was stored' },
        { message: 'no span id' },
        'not an object',
        { span_id: 'x' },
      ],
      input_errors_not_listed: 3,
    };
    expect(relayInputErrors(data, 17)).toEqual([
      { line: 17, session_id: 'conv-1', message: 'OTLP span 01 of trace abc: arrived after turn 4 was stored' },
      { line: 17, session_id: 'conv-1', message: 'no span id' },
      { line: 17, session_id: 'conv-1', message: 'and 3 more OTLP spans the relay could not place (not listed)' },
    ]);
  });

  it('finds nothing in an ordinary message', () => {
    expect(relayInputErrors({ type: 'snapshot', session_id: 's', turn: 1, spans: [] }, 1)).toEqual([]);
    expect(relayInputErrors(null, 1)).toEqual([]);
    expect(relayInputErrors({ input_errors: 'x' }, 1)).toEqual([]);
  });
});
