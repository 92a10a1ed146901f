import { describe, expect, it } from 'vitest';
import { wordDiff } from './diff.ts';

const render = (ops: ReturnType<typeof wordDiff>): string =>
  ops.map((o) => (o.op === 'same' ? o.text : o.op === 'add' ? `[+${o.text}]` : `[-${o.text}]`)).join('');

describe('wordDiff', () => {
  it('marks replaced words', () => {
    expect(render(wordDiff('the cat sat on the mat', 'the dog sat on the mat'))).toBe('the [-cat][+dog] sat on the mat');
  });

  it('rebuilds both texts exactly', () => {
    const a = 'keep the original task statement: ship by Friday, no regressions.';
    const b = 'keep the task: ship Friday; regressions allowed!';
    const ops = wordDiff(a, b);
    expect(
      ops
        .filter((o) => o.op !== 'add')
        .map((o) => o.text)
        .join(''),
    ).toBe(a);
    expect(
      ops
        .filter((o) => o.op !== 'del')
        .map((o) => o.text)
        .join(''),
    ).toBe(b);
  });

  it('is one same op for equal texts and falls back on very long changes', () => {
    expect(wordDiff('same text', 'same text')).toEqual([{ op: 'same', text: 'same text' }]);
    const long = (c: string): string => Array.from({ length: 3000 }, (_, i) => `${c}${i}`).join(' ');
    const ops = wordDiff(`start ${long('a')} end`, `start ${long('b')} end`);
    expect(ops.map((o) => o.op)).toEqual(['same', 'del', 'add', 'same']);
  });
});
