import { describe, expect, it } from 'vitest';
import { describeRule, EMPTY_FORM, ruleFromForm, type RuleForm } from './ruleForm.ts';

const form = (patch: Partial<RuleForm>): RuleForm => ({ ...EMPTY_FORM, ...patch });

describe('ruleFromForm', () => {
  it('a signal rule carries its signal and minimum severity, and leaves out empty optional fields', () => {
    expect(ruleFromForm(form({ kind: 'signal', signal: 'relevance_collapse', minSeverity: 'warning', forTurns: '2' }))).toEqual({
      rule: { signal: 'relevance_collapse', min_severity: 'warning', for_turns: 2 },
    });
    expect(ruleFromForm(form({ kind: 'signal', signal: 'any', minSeverity: '', forTurns: '' }))).toEqual({ rule: { signal: 'any' } });
  });

  it('an action rule holds only the action, whatever the signal fields say', () => {
    expect(ruleFromForm(form({ kind: 'action', action: 'recompute', signal: 'stale_score', minSeverity: 'fault' }))).toEqual({
      rule: { action: 'recompute', for_turns: 1 },
    });
  });

  it('a baseline rule turns the typed percent and turns into numbers', () => {
    expect(ruleFromForm(form({ kind: 'baseline', percent: ' 37.5 ', baselineTurns: '12', forTurns: '3' }))).toEqual({
      rule: { spread_below_baseline: { percent: 37.5, turns: 12 }, for_turns: 3 },
    });
  });

  it('session and webhook are sent trimmed, and only when given', () => {
    const r = ruleFromForm(form({ sessionId: '  run-42 ', webhook: ' http://127.0.0.1:9/hook ' }));
    expect(r).toEqual({ rule: { signal: 'any', min_severity: 'fault', for_turns: 1, session_id: 'run-42', webhook: 'http://127.0.0.1:9/hook' } });
  });

  it('names the field when a number is not one', () => {
    expect(ruleFromForm(form({ forTurns: 'two' }))).toEqual({ error: 'for turns must be a whole number; got "two"' });
    expect(ruleFromForm(form({ forTurns: '1.5' }))).toHaveProperty('error', 'for turns must be a whole number; got "1.5"');
    expect(ruleFromForm(form({ kind: 'baseline', percent: 'half' }))).toHaveProperty('error', 'spread below baseline: percent must be a number; got "half"');
    expect(ruleFromForm(form({ kind: 'baseline', percent: '' }))).toHaveProperty('error');
    expect(ruleFromForm(form({ kind: 'baseline', baselineTurns: '-3' }))).toHaveProperty(
      'error',
      'spread below baseline: baseline turns must be a whole number; got "-3"',
    );
    expect(ruleFromForm(form({ kind: 'signal', signal: ' ' }))).toHaveProperty('error', 'signal: choose a signal or "any"');
  });
});

describe('describeRule', () => {
  it('says what a rule watches, for how long, where, and its webhook', () => {
    expect(describeRule({ signal: 'any', min_severity: 'fault' })).toBe('any signal ≥ fault · every session');
    expect(describeRule({ action: 'freeze', for_turns: 3, session_id: 's1' })).toBe('verdict freeze for 3 turns · session s1');
    expect(describeRule({ spread_below_baseline: { percent: 40, turns: 10 }, webhook: 'http://h/x' })).toBe(
      "score spread below 40% of the first 10 turns' median · every session → http://h/x",
    );
  });
});
