// contract §8.4's rules one by one, on the auditor alone.
import { describe, expect, it } from 'vitest';
import { basename, CompactionAuditor, judgeItems, searchesEach, wordsOf, type AuditItemKind, type AuditStatus } from './compactionAudit.ts';

/** one item judged against `surviving` through the audit's index */
const judged =
  (kind: AuditItemKind) =>
  (itemText: string, surviving: string): AuditStatus =>
    judgeItems(surviving, [{ kind, text: itemText }]).statuses[0]!;
const judgeFile = judged('file');
const judgeText = judged('user_prompt');
const judgeVerbatim = judged('command');
const text = (t: string): string => t;

describe('contract §8.4 rules', () => {
  it('file: the basename, case-sensitive, as a substring (inside a longer word counts)', () => {
    expect(basename('/a/b/c.ts')).toBe('c.ts');
    expect(basename('C:\\src\\x.go')).toBe('x.go');
    expect(judgeFile('/a/io.ts', text('see radio.tsx'))).toBe('kept');
    expect(judgeFile('/a/Store.ts', text('store.ts'))).toBe('lost');
    expect(judgeFile('/a/', text('a'))).toBe('kept');
  });

  it('user_prompt: verbatim after collapsing white space, any case; else paraphrased by word coverage; else lost', () => {
    expect(judgeText('Add  a\nTEST', text('we must add a test now'))).toBe('kept');
    expect(judgeText('keep the public API unchanged please', text('the API stays public and unchanged'))).toBe('paraphrased');
    expect(judgeText('keep the public API unchanged', text('nothing relevant'))).toBe('lost');
    // stop words prove nothing
    expect(judgeText('the and with for', text('the and with for'))).toBe('kept');
    expect(judgeText('with the and for this', text('for the and with that'))).toBe('lost');
  });

  it('user_prompt in Chinese or Japanese: words are character pairs, so a summary in other words is paraphrased, not lost', () => {
    // a clause without spaces was one "word", never found again in other words
    expect([...wordsOf('修复缓存')].sort()).toEqual(['修复', '复缓', '缓存']);
    expect([...wordsOf('修复 src/cache.ts 的缓存问题')].sort()).toEqual(['cache', 'src', '修复', '的缓', '缓存', '存问', '问题'].sort());
    expect([...wordsOf('キャッシュを直す')].sort()).toEqual(['キャ', 'ャッ', 'ッシ', 'シュ', 'ュを', 'を直', '直す'].sort());
    // one CJK character between words proves nothing on its own
    expect([...wordsOf('fix 的 cache')].sort()).toEqual(['cache', 'fix']);
    const prompt = '请修复登录测试的随机失败，然后把缓存改成按大小淘汰';
    expect(judgeText(prompt, text(`用户要求：修复登录测试的随机失败，并把缓存改成按大小淘汰。`))).toBe('paraphrased');
    expect(judgeText(prompt, text('用户要求更新文档和依赖版本。'))).toBe('lost');
    expect(judgeText(prompt, text(`之前：${prompt}。`))).toBe('kept');
    expect(judgeText('ログインテストの不安定な失敗を直してください', text('ユーザーはログインテストの不安定な失敗を直すよう求めた'))).toBe('paraphrased');
  });

  it('command and error: verbatim or lost', () => {
    expect(judgeVerbatim('npm  test', text('ran NPM TEST twice'))).toBe('kept');
    expect(judgeVerbatim('npm test -- cache', text('npm test ran for the cache'))).toBe('lost');
  });
});

describe('CompactionAuditor', () => {
  it('one item per distinct path, one per prompt written (the same prompt twice is two)', () => {
    const a = new CompactionAuditor();
    a.add('file', '/x.ts', 1, 's1');
    a.add('file', '/x.ts', 2, 's2');
    a.add('user_prompt', 'go on', 1, 'p1');
    a.add('user_prompt', 'go on', 3, 'p2');
    a.compact();
    const { items } = a.judge(4, '');
    expect(items.map((i) => [i.kind, i.span_id])).toEqual([
      ['file', 's1'],
      ['user_prompt', 'p1'],
      ['user_prompt', 'p2'],
    ]);
  });

  it('refetches only until the next compaction; a short prompt is restated only word for word', () => {
    const a = new CompactionAuditor();
    a.add('file', '/x.ts', 1, 's1');
    a.add('user_prompt', 'fix it', 1, 'p1');
    a.compact();
    a.judge(2, '');
    a.promptWritten('please fix the thing', 3); // "fix it" has one word of three letters or more: not by words
    a.promptWritten('ok, fix it now', 4);
    a.fileRead('/x.ts', 5);
    a.fileRead('/x.ts', 6); // only the first
    expect(a.takeRefetches().map((r) => [r.kind, r.turn])).toEqual([
      ['user_prompt', 4],
      ['file', 5],
    ]);
    a.add('file', '/y.ts', 7, 's7');
    a.compact();
    a.fileRead('/x.ts', 8); // after the next compaction: not this one's
    expect(a.takeRefetches()).toEqual([]);
  });

  it('what a compaction kept is judged again at the next one, until one loses it', () => {
    const a = new CompactionAuditor();
    a.add('user_prompt', 'use postgres not sqlite', 1, 'p1');
    a.compact();
    expect(a.judge(2, 'Use Postgres, not SQLite.').items[0]!.status).toBe('paraphrased');
    a.compact();
    expect(a.judge(5, 'use postgres not sqlite').carried.map((c) => [c.status, c.first_audited_at])).toEqual([['kept', 2]]);
    a.compact();
    expect(a.judge(9, 'nothing').carried.map((c) => c.status)).toEqual(['lost']);
    a.compact();
    expect(a.judge(12, 'use postgres not sqlite').carried).toEqual([]);
  });
});

describe('contract §8.4 unknown: a surviving text that cannot all be read', () => {
  it('an item the readable text does not hold is unknown, not lost; one it holds is judged as usual', () => {
    const a = new CompactionAuditor();
    a.add('file', '/repo/a.ts', 1, 's1');
    a.add('file', '/repo/b.ts', 1, 's1');
    a.add('user_prompt', 'keep the public API unchanged please', 1, 'u1');
    a.add('command', 'npm test', 1, 's2');
    a.compact();
    const { items } = a.judge(3, '[encrypted compaction summary]\nthe API stays public and unchanged; a.ts', true);
    expect(items.map((i) => [i.text, i.status])).toEqual([
      ['/repo/a.ts', 'kept'],
      ['/repo/b.ts', 'unknown'],
      ['keep the public API unchanged please', 'paraphrased'],
      ['npm test', 'unknown'],
    ]);
  });

  it('an unknown item is carried to the next compaction and judged again there; a readable one can then lose it', () => {
    const a = new CompactionAuditor();
    a.add('file', '/repo/b.ts', 1, 's1');
    a.compact();
    a.judge(3, '[encrypted]', true);
    a.compact();
    expect(a.judge(6, 'b.ts is still open').carried.map((c) => [c.text, c.status, c.first_audited_at])).toEqual([['/repo/b.ts', 'kept', 3]]);
    a.compact();
    a.judge(9, 'nothing', false);
    a.compact();
    expect(a.judge(12, 'b.ts').carried).toEqual([]);
  });

  it('a refetch of an unknown item is still reported', () => {
    const a = new CompactionAuditor();
    a.add('file', '/repo/b.ts', 1, 's1');
    a.compact();
    a.judge(3, '[encrypted]', true);
    a.fileRead('/repo/b.ts', 4);
    expect(a.takeRefetches()).toEqual([{ compaction_turn: 3, kind: 'file', text: '/repo/b.ts', turn: 4 }]);
  });
});

describe('judgeItems: one index for every item', () => {
  it('judges many items at once exactly as each alone', () => {
    const surviving = 'Read parser.ts; we must add a test now. ran NPM TEST twice; the API stays public and unchanged';
    const items: { kind: AuditItemKind; text: string }[] = [
      { kind: 'file', text: '/repo/parser.ts' },
      { kind: 'file', text: '/repo/Parser.ts' },
      { kind: 'file', text: '/repo/parser.ts' },
      { kind: 'user_prompt', text: 'Add  a\nTEST' },
      { kind: 'user_prompt', text: 'keep the public API unchanged please' },
      { kind: 'todo', text: 'nothing of the sort' },
      { kind: 'command', text: 'npm  test' },
      { kind: 'error', text: 'npm test -- cache' },
      { kind: 'user_prompt', text: '   ' },
    ];
    const alone = items.map((it) => judgeItems(surviving, [it]).statuses[0]);
    expect(judgeItems(surviving, items).statuses).toEqual(alone);
    expect(alone).toEqual(['kept', 'lost', 'kept', 'kept', 'paraphrased', 'lost', 'kept', 'lost', 'lost']);
  });

  it('kept exactly where the text, as each rule reads it, holds the item (random items, most not there)', () => {
    let seed = 5;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const words = ['npm', 'test', 'src/a.ts', 'B.ts', 'fix', 'the', 'PARSER', 'é', '\n', '  ', 'run'];
    const text = (n: number): string => Array.from({ length: n }, () => words[rnd(words.length)]).join(rnd(2) === 0 ? ' ' : '');
    const kinds: AuditItemKind[] = ['file', 'command', 'error', 'user_prompt', 'todo'];
    const fold = (t: string): string => t.replace(/\s+/g, ' ').trim().toLowerCase();
    let throughTheTrie = 0;
    for (let round = 0; round < 400; round++) {
      // every fourth round many items against a long text: searched through the automaton, not one by one
      const many = round % 4 === 3;
      const surviving = text(many ? 1500 + rnd(500) : rnd(25));
      const items = Array.from({ length: many ? 300 + rnd(100) : 1 + rnd(12) }, (_, k) => ({
        kind: kinds[rnd(kinds.length)]!,
        // many: each its own, some of them found in the text
        text: many ? (rnd(4) === 0 ? surviving.slice(k, k + 8 + rnd(20)) : `${text(1 + rnd(3))} ${k}`) : text(1 + rnd(4)),
      }));
      // an item cut from the text itself, so that kept ones are common too
      if (surviving.length > 4) items.push({ kind: 'command', text: surviving.slice(rnd(surviving.length - 2), surviving.length) });
      // the folded items' set (a file is asked by its basename, in a set of its own)
      const folded = [...new Set(items.filter((it) => it.kind !== 'file').map((it) => fold(it.text)))].filter((t) => t !== '');
      if (!searchesEach(folded, fold(surviving))) throughTheTrie++;
      const { statuses } = judgeItems(surviving, items);
      items.forEach((it, i) => {
        const name = basename(it.text);
        const holds = it.kind === 'file' ? name !== '' && surviving.includes(name) : fold(it.text) !== '' && fold(surviving).includes(fold(it.text));
        expect(statuses[i] === 'kept', JSON.stringify([surviving, it])).toBe(holds);
      });
    }
    expect(throughTheTrie).toBe(100);
  });

  it('searches a few items one by one, and n items against an n-line summary through one automaton (docs/security.md "Linear time")', () => {
    const summary = 'The user asked to fix the parser; tests pass. '.repeat(60);
    // a generated session's audit: ~150 items of ~100 characters against a 2-3 kB summary
    const few = Array.from({ length: 150 }, (_, i) => `ran npm test -- --grep "case ${i}" in /repo/packages/parser/src/grammar/rules.test.ts`);
    expect(searchesEach(few, summary)).toBe(true);
    for (const n of [2_000, 20_000]) {
      const prompts = Array.from({ length: n }, (_, i) => `prompt ${i}`);
      const lines = Array.from({ length: n }, (_, i) => `line ${i} of the summary`).join('\n');
      expect(searchesEach(prompts, lines), `n = ${n}`).toBe(false);
    }
    expect(searchesEach([], '')).toBe(true);
  });
});
