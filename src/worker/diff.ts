// A word diff of a span's text against its previous version, for the inspector. Texts are
// short (a few hundred words); a long pair falls back to "common prefix and suffix, one
// changed middle" so the Worker never spends quadratic time on it.

import type { DiffOp } from './protocol.ts';

const MAX_CELLS = 1_000_000;

export function tokenize(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? [];
}

export function wordDiff(before: string, after: string): DiffOp[] {
  const a = tokenize(before);
  const b = tokenize(after);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ops: DiffOp[] = [];
  const push = (op: DiffOp['op'], text: string): void => {
    if (text === '') return;
    const last = ops[ops.length - 1];
    if (last !== undefined && last.op === op) last.text += text;
    else ops.push({ op, text });
  };
  push('same', a.slice(0, pre).join(''));
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  if (midA.length * midB.length > MAX_CELLS) {
    push('del', midA.join(''));
    push('add', midB.join(''));
  } else {
    for (const op of lcsOps(midA, midB)) push(op.op, op.text);
  }
  push('same', a.slice(a.length - suf).join(''));
  return ops;
}

function lcsOps(a: string[], b: string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  // table[i][j] = LCS length of a[i:], b[j:]
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = a[i] === b[j] ? table[(i + 1) * w + j + 1]! + 1 : Math.max(table[(i + 1) * w + j]!, table[i * w + j + 1]!);
    }
  }
  const out: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i]! });
      i++;
      j++;
    } else if (table[(i + 1) * w + j]! >= table[i * w + j + 1]!) {
      out.push({ op: 'del', text: a[i++]! });
    } else {
      out.push({ op: 'add', text: b[j++]! });
    }
  }
  while (i < n) out.push({ op: 'del', text: a[i++]! });
  while (j < m) out.push({ op: 'add', text: b[j++]! });
  return out;
}
